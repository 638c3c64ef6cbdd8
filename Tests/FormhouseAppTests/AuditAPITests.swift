import FormStore
import Foundation
import Testing
@testable import FormhouseApp

/// The audit log over real sockets: each admin write appears with the token that made it, the route,
/// the target and the versions; `GET /v1/admin/audit` pages and filters it for owners of every form.
@Suite struct AuditAPITests {
    static let alice = "alice-editor-token-00001"
    static let viewer = "viewer-token-0000000001"
    static let scopedOwner = "scoped-owner-token-0001"

    static func server() async throws -> InProcessServer {
        try await InProcessServer {
            $0.adminTokens = AdminToken.owners([InProcessServer.token]) + [
                AdminToken(name: "alice", token: alice, role: .editor, forms: nil),
                AdminToken(name: "vera", token: viewer, role: .viewer, forms: nil),
                AdminToken(name: "boss-of-signup", token: scopedOwner, role: .owner, forms: ["signup"]),
            ]
        }
    }

    @Test func everyAdminWriteIsLoggedWithItsTokenRouteTargetAndVersions() async throws {
        let server = try await Self.server()
        let owner = server.client
        let alice = TestHTTPClient(port: server.port, token: Self.alice)
        // A new form, a second version that sets a retention, the same definition again (no entry).
        #expect(try await alice.admin("PUT", "/v1/admin/forms/trip", json: #"{"id": "trip", "title": "Trip", "components": [{"text": {"id": "name", "title": "Name"}}]}"#).status == 201)
        let kept = #"{"id": "trip", "title": "Trip", "retentionDays": 90, "components": [{"text": {"id": "name", "title": "Name"}}]}"#
        #expect(try await alice.admin("PUT", "/v1/admin/forms/trip", json: kept).status == 200)
        #expect(try await alice.admin("PUT", "/v1/admin/forms/trip", json: kept).status == 200)
        let webhook = try await alice.admin("POST", "/v1/admin/forms/trip/webhooks", json: #"{"url": "http://127.0.0.1:9/hooks/secret-path?key=k1"}"#)
        let wid = try #require(webhook.object["id"] as? String)
        #expect(try await alice.admin("POST", "/v1/admin/webhooks/\(wid)/rotate").status == 200)
        let submitted = try await owner.postJSON("/v1/forms/trip/submissions", #"{"values": {"name": "Ana"}}"#)
        let sid = try #require(submitted.object["id"] as? String)
        // A delivery whose attempt may be in flight: asked again until it is queued.
        let deliveries = try await owner.admin("GET", "/v1/admin/deliveries?formId=trip").object["items"] as? [[String: Any]]
        let did = try #require(deliveries?.first?["id"] as? String)
        var redelivered = 0
        for _ in 0..<50 where redelivered != 202 {
            redelivered = try await owner.admin("POST", "/v1/admin/deliveries/\(did)/redeliver").status
            if redelivered == 409 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(redelivered == 202, "\(redelivered)")
        #expect(try await owner.admin("DELETE", "/v1/admin/submissions/\(sid)").status == 204)
        #expect(try await alice.admin("DELETE", "/v1/admin/webhooks/\(wid)").status == 204)
        #expect(try await alice.admin("DELETE", "/v1/admin/forms/trip").status == 204)
        #expect(try await alice.admin("POST", "/v1/admin/forms", json: #"{"id": "trip2", "title": "Trip 2", "components": []}"#).status == 201)
        // Refused writes leave nothing.
        #expect(try await alice.admin("DELETE", "/v1/admin/forms/trip").status == 404)
        #expect(try await TestHTTPClient(port: server.port, token: Self.viewer).admin("DELETE", "/v1/admin/forms/signup").status == 403)

        let page = try await owner.admin("GET", "/v1/admin/audit?target=trip")
        #expect(page.status == 200, "\(page.text)")
        #expect(page.header("Cache-Control") == "no-store")
        let items = try #require(page.object["items"] as? [[String: Any]])
        #expect(items.map { $0["action"] as? String } == ["form.deleted", "form.saved", "form.saved"])
        #expect(items.map { $0["actor"] as? String } == ["alice", "alice", "alice"])
        #expect(items.map { $0["route"] as? String } == ["DELETE /v1/admin/forms/{id}", "PUT /v1/admin/forms/{id}", "PUT /v1/admin/forms/{id}"])
        #expect(items.map { $0["versionBefore"] as? Int } == [2, 1, nil])
        #expect(items.map { $0["versionAfter"] as? Int } == [nil, 2, 1])
        let retention = (items[1]["detail"] as? [String: Any])?["retentionDays"] as? [String: Any]
        #expect(retention?["after"] as? Int == 90)
        #expect(retention?.keys.contains("before") == true && retention?["before"] is NSNull)

        let created = try #require(try await owner.admin("GET", "/v1/admin/audit?target=trip2").object["items"] as? [[String: Any]])
        #expect(created.map { $0["route"] as? String } == ["POST /v1/admin/forms"])
        #expect(created.first?["versionAfter"] as? Int == 1)
        let all = try #require(try await owner.admin("GET", "/v1/admin/audit").object["items"] as? [[String: Any]])
        #expect(all.map { $0["action"] as? String } == [
            "form.saved", "form.deleted", "webhook.deleted", "submission.erased", "delivery.redelivered", "webhook.rotated", "webhook.created",
            "form.saved", "form.saved",
        ] + all.dropFirst(9).map { $0["action"] as? String })
        let hook = try #require(all.first { $0["action"] as? String == "webhook.created" })
        #expect((hook["detail"] as? [String: Any])?["host"] as? String == "127.0.0.1")
        #expect(!(try await owner.admin("GET", "/v1/admin/audit").text.contains("secret-path")), "a webhook URL's path may be a secret")
        #expect(all.first { $0["action"] as? String == "submission.erased" }?["actor"] as? String == "token-1")
        #expect(all.first { $0["action"] as? String == "delivery.redelivered" }?["target"] as? String == did)

        // Each entry's hash is what its fields give, and each links to the one before.
        let entries = try await server.app.store.auditEntries(AuditQuery(limit: 100))
        for (entry, json) in zip(entries.reversed(), all) {
            #expect(json["hash"] as? String == entry.hash)
            #expect(json["previousHash"] as? String == entry.previousHash)
            #expect(json["sequence"] as? Int == Int(entry.sequence))
        }
        guard case .intact(let count, _) = try await AuditChain.verify(server.app.store) else {
            Issue.record("the chain does not verify"); return
        }
        #expect(count == Int64(entries.count))
        await server.finish()
    }

    @Test func pagesFiltersAndIsForOwnersOfEveryForm() async throws {
        let server = try await Self.server()
        let owner = server.client
        let alice = TestHTTPClient(port: server.port, token: Self.alice)
        for index in 1...5 {
            let form = #"{"id": "f\#(index % 2)", "title": "F \#(index)", "components": [{"text": {"id": "name", "title": "Name"}}]}"#
            #expect(try await alice.admin("PUT", "/v1/admin/forms/f\(index % 2)", json: form).status < 300)
        }
        var seen: [Int] = []
        var cursor: String?
        repeat {
            let path = "/v1/admin/audit?actor=alice&limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = try await owner.admin("GET", path)
            #expect(page.status == 200, "\(page.text)")
            seen += (page.object["items"] as? [[String: Any]] ?? []).compactMap { $0["sequence"] as? Int }
            cursor = page.object["nextCursor"] as? String
        } while cursor != nil && seen.count < 20
        #expect(seen.count == 5 && seen == seen.sorted(by: >), "\(seen)")
        #expect((try await owner.admin("GET", "/v1/admin/audit?action=form.saved&target=f1").object["items"] as? [Any])?.count == 3)
        #expect((try await owner.admin("GET", "/v1/admin/audit?actor=nobody").object["items"] as? [Any])?.isEmpty == true)
        #expect((try await owner.admin("GET", "/v1/admin/audit?until=2000-01-01T00:00:00Z").object["items"] as? [Any])?.isEmpty == true)
        #expect((try await owner.admin("GET", "/v1/admin/audit?from=2000-01-01T00:00:00.5Z").object["items"] as? [Any])?.count == 5)

        let badTime = try await owner.admin("GET", "/v1/admin/audit?from=yesterday")
        #expect(badTime.status == 400)
        #expect((badTime.object["detail"] as? String)?.contains("RFC 3339") == true)
        let firstPage = try await owner.admin("GET", "/v1/admin/audit?limit=1")
        let token = try #require(firstPage.object["nextCursor"] as? String)
        #expect(try await owner.admin("GET", "/v1/admin/audit?limit=1&actor=alice&cursor=\(token)").status == 400, "a cursor of another filter")
        #expect(try await owner.admin("GET", "/v1/admin/audit?limit=0").status == 400)

        for token in [Self.alice, Self.viewer] {
            let refused = try await TestHTTPClient(port: server.port, token: token).admin("GET", "/v1/admin/audit")
            #expect(refused.status == 403)
            #expect((refused.object["detail"] as? String)?.contains("this needs an owner") == true, "\(refused.text)")
        }
        let scoped = try await TestHTTPClient(port: server.port, token: Self.scopedOwner).admin("GET", "/v1/admin/audit")
        #expect(scoped.status == 403)
        #expect((scoped.object["detail"] as? String)?.contains("needs an owner of every form") == true, "\(scoped.text)")
        await server.finish()
    }

    /// The check docs/api.md gives in Python, run on the server's answers: the chain is what the docs
    /// say it is, nested details, nulls and non-ASCII names included.
    @Test func theDocumentedPythonCheckAgreesWithTheServer() async throws {
        let server = try await InProcessServer {
            $0.adminTokens = [AdminToken(name: "Zoë", token: Self.alice, role: .owner, forms: nil)]
        }
        let zoe = TestHTTPClient(port: server.port, token: Self.alice)
        for days in [nil, 30, 60] as [Int?] {
            let retention = days.map { #""retentionDays": \#($0), "# } ?? ""
            let form = #"{"id": "trip", \#(retention)"title": "Trip \#(days ?? 0)", "components": [{"text": {"id": "name", "title": "Name"}}]}"#
            #expect(try await zoe.admin("PUT", "/v1/admin/forms/trip", json: form).status < 300)
        }
        #expect(try await zoe.admin("POST", "/v1/admin/forms/trip/webhooks", json: #"{"url": "http://127.0.0.1:9/hook"}"#).status == 201)
        let page = try await zoe.admin("GET", "/v1/admin/audit?limit=500")
        let items = try #require(page.object["items"] as? [[String: Any]])
        #expect(items.count == 4)
        let oldestFirst = try JSONSerialization.data(withJSONObject: Array(items.reversed()))
        let entries = FileManager.default.temporaryDirectory.appendingPathComponent("audit-\(UUID().uuidString).json")
        try oldestFirst.write(to: entries)
        defer { try? FileManager.default.removeItem(at: entries) }

        let docs = try String(contentsOf: Repo.root.appendingPathComponent("docs/api.md"), encoding: .utf8)
        let afterPython = try #require(docs.range(of: "In Python")).upperBound
        let block = try #require(docs[afterPython...].firstMatch(of: /```python\n([\s\S]*?)```/)?.1)
        let script = String(block) + "\nimport sys\nprint(check(json.load(open(sys.argv[1], encoding='utf-8'))))\n"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, entries.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(printed)")
        #expect(printed == (items.first?["hash"] as? String ?? "-") + "\n", "\(printed)")
        await server.finish()
    }
}
