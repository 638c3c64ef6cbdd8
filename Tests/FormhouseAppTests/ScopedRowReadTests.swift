import Testing
@testable import FormhouseApp

/// A route that names a row (a submission, webhook, delivery or file) reads it once: the guard reads
/// it to check a token limited to some forms, and the handler answers from that read; a token for
/// every form skips the guard's read, and the handler reads it then. Rows that do not exist, or that
/// belong to a form the token does not reach, answer as they did when both read it.
struct ScopedRowReadTests {
    static let claimOwner = "scoped-claim-owner-token-01"
    static let otherOwner = "scoped-other-owner-token-01"

    /// A server on a counting store whose form `claim` has a webhook, a file and a submission that
    /// took it (and so a delivery).
    static func populated() async throws -> (server: InProcessServer, store: CountingStore, ids: [String: String]) {
        var counting: CountingStore?
        let server = try await InProcessServer(configure: {
            $0.adminTokens = AdminToken.owners([InProcessServer.token])
                + [AdminToken(name: "claim", token: claimOwner, role: .owner, forms: ["claim"]),
                   AdminToken(name: "other", token: otherOwner, role: .owner, forms: ["other"])]
        }, wrappingStore: { store in
            let wrapped = CountingStore(store)
            counting = wrapped
            return wrapped
        })
        return (server, try #require(counting), try await RoleMatrixTests.populate(server))
    }

    /// The routes that read their row, with the row's id parameter. (Redelivering reads the delivery
    /// again after queueing it, to answer with its new state; the webhook routes write rather than
    /// read, and are counted apart.)
    static let reading = [
        ("GET", "/v1/admin/submissions/{sid}", "sid"), ("GET", "/v1/admin/submissions/{sid}/raw", "sid"),
        ("GET", "/v1/admin/deliveries/{did}", "did"), ("GET", "/v1/admin/files/{fid}", "fid"),
    ]

    @Test func aRouteReadsTheRowItNamesOnce() async throws {
        let (server, store, ids) = try await Self.populated()
        let claim = TestHTTPClient(port: server.port, token: Self.claimOwner)
        let other = TestHTTPClient(port: server.port, token: Self.otherOwner)
        for (method, pattern, name) in Self.reading {
            let id = try #require(ids[name])
            let path = pattern.replacingOccurrences(of: "{\(name)}", with: id)
            for (label, client) in [("scoped", claim), ("every form", server.client)] {
                store.reset()
                let answer = try await client.admin(method, path)
                #expect(answer.status == 200, "\(method) \(path) as \(label): \(answer.text)")
                #expect(store.reads(of: id) == 1, "\(method) \(path) as \(label) read its row \(store.reads(of: id)) times")
            }
            store.reset()
            #expect(try await other.admin(method, path).status == 403, "\(method) \(path)")
            #expect(store.reads(of: id) == 1, "\(method) \(path) for another form read its row \(store.reads(of: id)) times")
        }

        // The webhook routes' writes answer whether the endpoint exists: only the guard reads it.
        let wid = try #require(ids["wid"])
        store.reset()
        #expect(try await server.client.admin("POST", "/v1/admin/webhooks/\(wid)/rotate").status == 200)
        #expect(store.reads(of: wid) == 0)
        #expect(try await claim.admin("POST", "/v1/admin/webhooks/\(wid)/rotate").status == 200)
        #expect(store.reads(of: wid) == 1)

        let sid = try #require(ids["sid"])
        store.reset()
        #expect(try await other.admin("DELETE", "/v1/admin/submissions/\(sid)").status == 403)
        #expect(store.reads(of: sid) == 1)
        store.reset()
        #expect(try await claim.admin("DELETE", "/v1/admin/submissions/\(sid)").status == 204)
        #expect(store.reads(of: sid) == 1)
        await server.finish()
    }

    /// A row that does not exist is read once, and answers a scoped token exactly as it answers a
    /// token for every form.
    @Test func anUnknownRowIsReadOnceAndAnsweredAsBefore() async throws {
        let (server, store, _) = try await Self.populated()
        let claim = TestHTTPClient(port: server.port, token: Self.claimOwner)
        let missing = [
            ("GET", "/v1/admin/submissions/sub_nope", "sub_nope"), ("GET", "/v1/admin/submissions/sub_nope/raw", "sub_nope"),
            ("DELETE", "/v1/admin/submissions/sub_nope", "sub_nope"), ("GET", "/v1/admin/deliveries/dlv_nope", "dlv_nope"),
            ("GET", "/v1/admin/files/upl_nope", "upl_nope"), ("GET", "/v1/admin/files/nope", "nope"),
        ]
        for (method, path, id) in missing {
            store.reset()
            let scoped = try await claim.admin(method, path)
            #expect(store.reads(of: id) == 1, "\(method) \(path) read its row \(store.reads(of: id)) times")
            let everyForm = try await server.client.admin(method, path)
            #expect(scoped.status == 404, "\(method) \(path)")
            #expect(scoped.status == everyForm.status && scoped.text == everyForm.text, "\(method) \(path): \(scoped.text) against \(everyForm.text)")
        }
        await server.finish()
    }
}
