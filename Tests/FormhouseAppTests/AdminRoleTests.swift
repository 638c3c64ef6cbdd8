import Crypto
import Foundation
import HTTPServer
import Testing
@testable import FormhouseApp

/// Scoped admin tokens: every admin route against every role, the whoami answer, scoped lists, and
/// the configuration of `adminTokens`.
struct RoleMatrixTests {
    /// Every admin route and what it needs, written out here so that a route added without a
    /// declaration, or with a different one, fails the matrix.
    static let expectedNeeds: [String: AdminNeed] = [
        "GET /v1/admin/whoami": .init(.any),
        "PUT /v1/admin/forms/{id}": .init(.edit, .form("id")),
        "POST /v1/admin/forms": .init(.edit, .body),
        "GET /v1/admin/forms": .init(.read),
        "GET /v1/admin/forms/{id}": .init(.read, .form("id")),
        "GET /v1/admin/forms/{id}/versions": .init(.read, .form("id")),
        "DELETE /v1/admin/forms/{id}": .init(.edit, .form("id")),
        "GET /v1/admin/forms/{id}/submissions": .init(.export, .form("id")),
        "GET /v1/admin/submissions/{sid}": .init(.read, .submission("sid")),
        "GET /v1/admin/submissions/{sid}/raw": .init(.read, .submission("sid")),
        "POST /v1/admin/forms/{id}/webhooks": .init(.edit, .form("id")),
        "GET /v1/admin/forms/{id}/webhooks": .init(.edit, .form("id")),
        "DELETE /v1/admin/webhooks/{wid}": .init(.edit, .webhook("wid")),
        "POST /v1/admin/webhooks/{wid}/rotate": .init(.edit, .webhook("wid")),
        "GET /v1/admin/deliveries": .init(.read),
        "GET /v1/admin/deliveries/{did}": .init(.read, .delivery("did")),
        "POST /v1/admin/deliveries/{did}/redeliver": .init(.edit, .delivery("did")),
        "GET /v1/admin/files/{fid}": .init(.read, .file("fid")),
        "GET /v1/admin/forms/{id}/stats": .init(.read, .form("id")),
        "GET /v1/admin/audit": .init(.own, .everyForm),
        "DELETE /v1/admin/submissions/{sid}": .init(.own, .submission("sid")),
        "POST /v1/admin/forms/{id}/erasure": .init(.own, .form("id")),
    ]

    /// The roles each action admits, as docs/api.md's table has them (an exporter's export needs a format).
    static let admitted: [AdminNeed.Action: Set<AdminRole>] = [
        .any: [.owner, .editor, .viewer, .exporter], .edit: [.owner, .editor],
        .read: [.owner, .editor, .viewer], .export: [.owner, .editor, .viewer], .own: [.owner],
    ]

    struct Caller {
        let token: String
        let role: AdminRole
        let forms: Set<String>?
        var admin: AdminToken { AdminToken(name: "\(role.rawValue)\(forms == nil ? "" : "-scoped")", token: token, role: role, forms: forms) }
    }

    /// In the order they call: the tokens of another form first, so that no allowed call (a delete) has
    /// yet removed the row whose form refuses them; the roles refused as roles are refused whatever
    /// the rows.
    static let callers = [
        Caller(token: "scoped-editor-token-000001", role: .editor, forms: ["other"]),
        Caller(token: "scoped-exporter-token-0001", role: .exporter, forms: ["other"]),
        Caller(token: "scoped-viewer-token-000001", role: .viewer, forms: ["claim"]),
        Caller(token: "scoped-owner-token-0000001", role: .owner, forms: ["claim"]),
        Caller(token: "exporter-token-0000000001", role: .exporter, forms: nil),
        Caller(token: "viewer-token-00000000001", role: .viewer, forms: nil),
        Caller(token: "editor-token-00000000001", role: .editor, forms: nil),
        Caller(token: "owner-token-000000000001", role: .owner, forms: nil),
    ]

    static func server() async throws -> InProcessServer {
        try await InProcessServer { $0.adminTokens = AdminToken.owners([InProcessServer.token]) + callers.map(\.admin) }
    }

    /// A server whose form `claim` has a webhook, a file and a submission that took it (and so a delivery).
    static func populated() async throws -> (server: InProcessServer, ids: [String: String]) {
        let server = try await server()
        return (server, try await populate(server))
    }

    /// Gives `server` the form `claim` with a webhook, a file and a submission that took it (and so a
    /// delivery); returns their ids.
    static func populate(_ server: InProcessServer) async throws -> [String: String] {
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/claim", json: FileFixtures.claimForm).status == 201)
        let webhook = try await client.admin("POST", "/v1/admin/forms/claim/webhooks", json: #"{"url": "http://127.0.0.1:9/hook"}"#)
        let upload = try await client.send("POST", "/v1/forms/claim/uploads?field=photo", headers: [("Content-Type", "image/png")], body: FileFixtures.png)
        let fid = try #require(upload.object["id"] as? String)
        let submitted = try await client.postJSON("/v1/forms/claim/submissions", #"{"values": {"name": "Ana", "photo": "\#(fid)"}}"#)
        #expect(submitted.status == 201, "\(submitted.text)")
        let deliveries = try await client.admin("GET", "/v1/admin/deliveries").object["items"] as? [[String: Any]]
        return [
            "id": "claim", "fid": fid,
            "sid": try #require(submitted.object["id"] as? String),
            "wid": try #require(webhook.object["id"] as? String),
            "did": try #require(deliveries?.first?["id"] as? String),
        ]
    }

    static func body(_ method: HTTPMethod, _ pattern: String) -> String {
        switch (method, pattern) {
        case (.put, "/v1/admin/forms/{id}"), (.post, "/v1/admin/forms"): FileFixtures.claimForm
        case (.post, "/v1/admin/forms/{id}/webhooks"): #"{"url": "http://127.0.0.1:9/hook"}"#
        case (.post, "/v1/admin/forms/{id}/erasure"): #"{"field": "name", "equals": "Ana"}"#
        default: "{}"
        }
    }

    /// Whether `caller` may make the call, from the expectations above: the role, then the form.
    static func allowed(_ need: AdminNeed, _ caller: Caller, format: String?) -> Bool {
        let export = need.action == .export && (format == "csv" || format == "ndjson")
        let roles = admitted[need.action]!.union(export ? [.exporter] : [])
        guard roles.contains(caller.role) else { return false }
        // The audit log names every form: only a token that reaches every form reads it.
        if need.target == .everyForm, caller.forms != nil { return false }
        // Every target of the matrix is form `claim`, and so is POST /forms's body.
        return need.target == .none || caller.forms?.contains("claim") ?? true
    }

    @Test func everyAdminRouteDeclaresWhatItNeeds() async throws {
        let server = try await Self.server()
        let routes = server.app.router.routes.filter { $0.1.hasPrefix("/v1/admin") }.map { "\($0.0.rawValue) \($0.1)" }
        for route in routes {
            #expect(Self.expectedNeeds[route] != nil, "\(route) has no expectation in RoleMatrixTests")
            #expect(server.app.adminNeeds[route] == Self.expectedNeeds[route], "\(route) declares another need")
        }
        #expect(Set(routes) == Set(Self.expectedNeeds.keys))
        await server.finish()
    }

    @Test func everyAdminRouteAgainstEveryRole() async throws {
        let probe = try await Self.server()
        let routes = probe.app.router.routes.filter { $0.1.hasPrefix("/v1/admin") }
        await probe.finish()
        for (method, pattern) in routes {
            let need = try #require(Self.expectedNeeds["\(method.rawValue) \(pattern)"])
            for format in need.action == .export ? [nil, "json", "csv", "ndjson"] : [nil] {
                let (server, ids) = try await Self.populated()
                var path = pattern
                for (name, id) in ids { path = path.replacingOccurrences(of: "{\(name)}", with: id) }
                if let format { path += "?format=\(format)" }
                for caller in Self.callers {
                    let client = TestHTTPClient(port: server.port, token: caller.token)
                    let answer = try await client.admin(method.rawValue, path, json: method == .get || method == .delete ? nil : Self.body(method, pattern))
                    let label = "\(method.rawValue) \(path) as \(caller.admin.name)"
                    if Self.allowed(need, caller, format: format) {
                        // A read answers; a write may meet what an earlier caller changed (a form
                        // deleted, a delivery in flight), but never fails.
                        let expected = method == .get ? answer.status == 200 : answer.status < 500
                        #expect(answer.status != 401 && answer.status != 403 && expected, "\(label) answered \(answer.status): \(answer.text)")
                    } else {
                        #expect(answer.status == 403, "\(label) answered \(answer.status)")
                        #expect(answer.object["type"] as? String == ProblemType.forbidden.uri, "\(label)")
                        #expect((answer.object["detail"] as? String)?.contains("'\(caller.admin.name)'") == true, "\(label)")
                        #expect(answer.header("WWW-Authenticate") == nil, "\(label)")
                    }
                }
                await server.finish()
            }
        }
    }

    /// A viewer may read deliveries but not list webhooks: it sees where they go, not the URL's path
    /// or query, which are often secrets of their own. An editor sees the whole URL.
    @Test func aViewerSeesOnlyTheOriginOfADeliverysURL() async throws {
        let server = try await Self.server()
        let owner = server.client
        #expect(try await owner.admin("PUT", "/v1/admin/forms/claim", json: FileFixtures.claimForm).status == 201)
        #expect(try await owner.admin("POST", "/v1/admin/forms/claim/webhooks", json: #"{"url": "http://127.0.0.1:9/hooks/T0/B0/s3cr3t?key=k1"}"#).status == 201)
        let upload = try await owner.send("POST", "/v1/forms/claim/uploads?field=photo", headers: [("Content-Type", "image/png")], body: FileFixtures.png)
        let fid = try #require(upload.object["id"] as? String)
        #expect(try await owner.postJSON("/v1/forms/claim/submissions", #"{"values": {"name": "Ana", "photo": "\#(fid)"}}"#).status == 201)
        let viewer = TestHTTPClient(port: server.port, token: Self.callers.first { $0.role == .viewer && $0.forms == nil }!.token)
        let editor = TestHTTPClient(port: server.port, token: Self.callers.first { $0.role == .editor && $0.forms == nil }!.token)
        let listed = try await viewer.admin("GET", "/v1/admin/deliveries").object["items"] as? [[String: Any]]
        let did = try #require(listed?.first?["id"] as? String)
        #expect(listed?.first?["url"] as? String == "http://127.0.0.1:9/")
        let one = try await viewer.admin("GET", "/v1/admin/deliveries/\(did)")
        #expect(one.object["url"] as? String == "http://127.0.0.1:9/")
        #expect(!one.text.contains("s3cr3t"))
        #expect(try await editor.admin("GET", "/v1/admin/deliveries/\(did)").object["url"] as? String == "http://127.0.0.1:9/hooks/T0/B0/s3cr3t?key=k1")
        await server.finish()
    }

    /// A row that does not exist is 404 for a scoped token too, not a 403 that would tell it apart.
    @Test func anUnknownRowIsNotFoundForEveryone() async throws {
        let server = try await Self.server()
        let scoped = TestHTTPClient(port: server.port, token: Self.callers[0].token)
        for path in ["/v1/admin/submissions/sub_nope", "/v1/admin/deliveries/dlv_nope", "/v1/admin/files/upl_nope"] {
            #expect(try await scoped.admin("GET", path).status == 404, "\(path)")
        }
        #expect(try await scoped.admin("DELETE", "/v1/admin/webhooks/ep_nope").status == 404)
        await server.finish()
    }

    @Test func theRefusalNamesTheTokenAndTheRoleNeeded() async throws {
        let server = try await InProcessServer {
            $0.adminTokens = [AdminToken(name: "ops", token: "ops-token-0000000000001", role: .viewer, forms: ["signup"])]
        }
        let ops = TestHTTPClient(port: server.port, token: "ops-token-0000000000001")
        let refused = try await ops.admin("DELETE", "/v1/admin/forms/signup")
        #expect(refused.status == 403)
        #expect(refused.object["detail"] as? String == "Token 'ops' is a viewer; this needs an editor.")
        let elsewhere = try await ops.admin("GET", "/v1/admin/forms/account")
        #expect(elsewhere.object["detail"] as? String == "Token 'ops' does not reach form 'account'.")
        await server.finish()
    }

    @Test func whoamiTellsEachTokenItsNameRoleAndForms() async throws {
        let server = try await Self.server()
        for caller in Self.callers {
            let answer = try await TestHTTPClient(port: server.port, token: caller.token).admin("GET", "/v1/admin/whoami")
            #expect(answer.status == 200)
            #expect(answer.object["name"] as? String == caller.admin.name)
            #expect(answer.object["role"] as? String == caller.role.rawValue)
            #expect(answer.object["forms"] as? [String] == caller.forms.map { $0.sorted() })
            #expect(answer.object.keys.contains("forms"))
        }
        let plain = try await server.client.admin("GET", "/v1/admin/whoami")
        #expect(plain.text == #"{"name":"token-1","role":"owner","forms":null}"#)
        await server.finish()
    }

    /// A viewer of `signup` lists only `signup`, and only its deliveries.
    @Test func listsHoldOnlyTheTokensForms() async throws {
        let server = try await InProcessServer {
            $0.adminTokens = AdminToken.owners([InProcessServer.token])
                + [AdminToken(name: "ops", token: "ops-token-0000000000001", role: .viewer, forms: ["signup"]),
                   AdminToken(name: "two", token: "two-token-0000000000001", role: .viewer, forms: ["signup", "claim"])]
        }
        let owner = server.client
        #expect(try await owner.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        #expect(try await owner.admin("PUT", "/v1/admin/forms/claim", json: FileFixtures.claimForm).status == 201)
        for form in ["signup", "claim"] {
            #expect(try await owner.admin("POST", "/v1/admin/forms/\(form)/webhooks", json: #"{"url": "http://127.0.0.1:9/hook"}"#).status == 201)
        }
        #expect(try await owner.postJSON("/v1/forms/signup/submissions", Fixtures.validValues).status == 201)
        let upload = try await owner.send("POST", "/v1/forms/claim/uploads?field=photo", headers: [("Content-Type", "image/png")], body: FileFixtures.png)
        let fid = try #require(upload.object["id"] as? String)
        #expect(try await owner.postJSON("/v1/forms/claim/submissions", #"{"values": {"name": "Ana", "photo": "\#(fid)"}}"#).status == 201)

        func formIDs(_ client: TestHTTPClient, _ path: String, key: String) async throws -> [String] {
            let items = try await client.admin("GET", path).object["items"] as? [[String: Any]] ?? []
            return items.compactMap { $0[key] as? String }.sorted()
        }
        let ops = TestHTTPClient(port: server.port, token: "ops-token-0000000000001")
        let two = TestHTTPClient(port: server.port, token: "two-token-0000000000001")
        #expect(try await formIDs(owner, "/v1/admin/forms", key: "id").count > 2)
        #expect(try await formIDs(ops, "/v1/admin/forms", key: "id") == ["signup"])
        #expect(try await formIDs(two, "/v1/admin/forms", key: "id") == ["claim", "signup"])
        #expect(try await formIDs(owner, "/v1/admin/deliveries", key: "formId") == ["claim", "signup"])
        #expect(try await formIDs(ops, "/v1/admin/deliveries", key: "formId") == ["signup"])
        #expect(try await formIDs(two, "/v1/admin/deliveries", key: "formId") == ["claim", "signup"])
        #expect(try await ops.admin("GET", "/v1/admin/deliveries?formId=claim").status == 403)
        await server.finish()
    }

    /// A `sha256:` entry opens the API to the token whose digest it holds; neither it nor a plain
    /// entry's token reaches the log.
    @Test func sha256TokensWorkAndNoTokenReachesTheLog() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let hashed = "hashed-token-0123456789ab"
        let plain = "plain-entry-token-0123456"
        let digest = SHA256.hash(data: Array(hashed.utf8)).map { String(format: "%02x", $0) }.joined()
        let config = dir.path + "/formhouse.json"
        try #"""
        {"adminTokens": [{"name": "ci", "token": "sha256:\#(digest)", "role": "viewer"},
                         {"name": "ops", "token": "\#(plain)", "role": "exporter", "forms": ["signup"]}]}
        """#.write(toFile: config, atomically: true, encoding: .utf8)
        let logFile = dir.path + "/server.log"
        // An empty variable is not set: the file's tokens are the ones read.
        let server = try ServerProcess(dataDirectory: dir.path + "/data", extraArguments: ["--config", config],
                                       environment: ["FORMHOUSE_ADMIN_TOKENS": ""], logFile: logFile, logLevel: "trace")
        let ci = TestHTTPClient(port: server.port, token: hashed)
        #expect(try await ci.admin("GET", "/v1/admin/whoami").text == #"{"name":"ci","role":"viewer","forms":null}"#)
        #expect(try await ci.admin("GET", "/v1/admin/forms").status == 200)
        #expect(try await TestHTTPClient(port: server.port, token: digest).admin("GET", "/v1/admin/forms").status == 401)
        let ops = TestHTTPClient(port: server.port, token: plain)
        #expect(try await ops.admin("GET", "/v1/admin/forms/signup/submissions?format=csv").status != 403)
        #expect(try await ops.admin("GET", "/v1/admin/forms/signup/submissions").status == 403)
        #expect(server.terminate() == 0)
        let log = try String(contentsOfFile: logFile, encoding: .utf8)
        #expect(log.components(separatedBy: "request").count > 4)
        #expect(!log.contains(hashed))
        #expect(!log.contains(plain))
    }
}

/// `adminTokens` in the configuration file and the environment.
struct AdminTokenConfigurationTests {
    func load(_ json: String, environment: [String: String] = [:]) async throws -> AppConfiguration {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.path + "/formhouse.json"
        try json.write(toFile: file, atomically: true, encoding: .utf8)
        return try await AppConfiguration.load(file: file, environment: environment)
    }

    func refusal(_ json: String) async -> ConfigurationError? {
        do {
            _ = try await load(json)
            return nil
        } catch {
            return error as? ConfigurationError
        }
    }

    @Test func entriesAreReadWithTheirRolesAndForms() async throws {
        let digest = String(repeating: "ab", count: 32)
        let configuration = try await load(#"""
        {"adminTokens": ["plain-owner-token-000001",
                         {"name": "ops", "token": "sha256:\#(digest)", "role": "viewer", "forms": ["signup"]},
                         {"name": "ci", "token": "ci-token-000000000001", "role": "exporter"}]}
        """#)
        #expect(configuration.adminTokens == [
            AdminToken(name: "token-1", token: "plain-owner-token-000001"),
            AdminToken(name: "ops", digest: Array(repeating: 0xAB, count: 32), role: .viewer, forms: ["signup"]),
            AdminToken(name: "ci", token: "ci-token-000000000001", role: .exporter),
        ])
    }

    /// Plain lists stay owners, in the file and in the environment, which overrides the file.
    @Test func plainListsAreOwners() async throws {
        let file = try await load(#"{"adminTokens": ["aaaaaaaaaaaaaaaa1", "bbbbbbbbbbbbbbbb2"]}"#)
        #expect(file.adminTokens == AdminToken.owners(["aaaaaaaaaaaaaaaa1", "bbbbbbbbbbbbbbbb2"]))
        #expect(file.adminTokens.allSatisfy { $0.role == .owner && $0.forms == nil })
        let overridden = try await load(#"{"adminTokens": [{"name": "ops", "token": "ops-token-0000000000001", "role": "viewer"}]}"#,
                                        environment: ["FORMHOUSE_ADMIN_TOKENS": "cccccccccccccccc3"])
        #expect(overridden.adminTokens == AdminToken.owners(["cccccccccccccccc3"]))
    }

    @Test func badEntriesAreRefusedByKeyAndIndex() async throws {
        let token = "a-good-token-0000000001"
        let cases: [(String, String)] = [
            (#"[{"name": "ops", "token": "\#(token)", "role": "admin"}]"#, "adminTokens[0].role"),
            (#"[{"name": "ops", "token": "\#(token)"}]"#, "adminTokens[0].role"),
            (#"[{"token": "\#(token)", "role": "owner"}]"#, "adminTokens[0].name"),
            (#"[{"name": "a b", "token": "\#(token)", "role": "owner"}]"#, "adminTokens[0].name"),
            (#"[{"name": "\#(String(repeating: "n", count: 65))", "token": "\#(token)", "role": "owner"}]"#, "adminTokens[0].name"),
            (#"["\#(token)", {"name": "ops", "token": "short", "role": "owner"}]"#, "adminTokens[1].token"),
            (#"[{"name": "ops", "token": "sha256:abcd", "role": "owner"}]"#, "adminTokens[0].token"),
            (#"[{"name": "ops", "token": "sha256:\#(String(repeating: "g", count: 64))", "role": "owner"}]"#, "adminTokens[0].token"),
            (#"[{"name": "ops", "token": "\#(token)", "role": "viewer", "forms": "signup"}]"#, "adminTokens[0].forms"),
            (#"[{"name": "ops", "token": "\#(token)", "role": "viewer", "forms": [1]}]"#, "adminTokens[0].forms"),
            (#"[{"name": "ops", "token": "\#(token)", "role": "viewer", "form": ["signup"]}]"#, "adminTokens[0].form"),
            (#"[{"name": "ops", "token": "\#(token)", "role": "owner"}, {"name": "ops", "token": "b-good-token-0000000001", "role": "owner"}]"#,
             "adminTokens[1].name"),
            (#"["\#(token)", {"name": "token-1", "token": "b-good-token-0000000001", "role": "owner"}]"#, "adminTokens[1].name"),
            // One value twice, once a viewer and once an owner: which would it be?
            (#"[{"name": "ops", "token": "\#(token)", "role": "viewer"}, {"name": "root", "token": "\#(token)", "role": "owner"}]"#,
             "adminTokens[1].token"),
            (#"[5]"#, "adminTokens[0]"),
        ]
        for (tokens, key) in cases {
            let error = await refusal(#"{"adminTokens": \#(tokens)}"#)
            #expect(error?.key == key, "\(tokens)")
            // No message repeats a token.
            #expect(error.map { !"\($0)".contains("good-token") && !"\($0)".contains("short") } == true, "\(tokens)")
        }
    }
}
