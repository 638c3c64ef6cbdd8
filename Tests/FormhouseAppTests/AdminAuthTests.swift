import HTTPServer
import Logging
import Testing
@testable import FormhouseApp

/// Every admin route the router has refuses a request without a valid token.
struct AdminAuthCoverageTests {
    @Test func everyAdminRouteAnswers401WithoutAToken() async throws {
        let server = try await InProcessServer()
        let routes = server.app.router.routes.filter { $0.1.hasPrefix("/v1/admin") }
        #expect(routes.count >= 15)
        var anonymous = server.client
        for (method, pattern) in routes {
            let path = pattern.replacingOccurrences(of: #"\{[^}]+\}"#, with: "x", options: .regularExpression)
            anonymous.token = nil
            let none = try await anonymous.send(method.rawValue, path, headers: [("Content-Type", "application/json")], body: Array("{}".utf8))
            #expect(none.status == 401, "\(method.rawValue) \(pattern) answered \(none.status) without a token")
            #expect(none.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            anonymous.token = "not-the-token-at-all"
            let wrong = try await anonymous.send(method.rawValue, path, headers: [("Authorization", "Bearer not-the-token-at-all"), ("Content-Type", "application/json")], body: Array("{}".utf8))
            #expect(wrong.status == 401, "\(method.rawValue) \(pattern) answered \(wrong.status) with a wrong token")
        }
        await server.finish()
    }

    /// The group's middleware belongs to the prefix: a route registered under `/v1/admin` outside the
    /// group's builder still runs behind it, so an admin route without auth cannot exist.
    @Test func everyAdminAnswerIsNeverStored() async throws {
        let server = try await InProcessServer()
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).header("Cache-Control") == "no-store")
        for path in ["/v1/admin/forms", "/v1/admin/forms/signup", "/v1/admin/forms/nowhere", "/v1/admin/deliveries?status=nope", "/v1/admin"] {
            #expect(try await client.admin("GET", path).header("Cache-Control") == "no-store", "\(path)")
            #expect(try await client.get(path).header("Cache-Control") == "no-store", "\(path) without a token")
        }
        // Public answers keep their own caching: a form is revalidated, not forbidden from caches.
        #expect(try await client.get("/v1/forms/signup").header("Cache-Control") == "no-cache")
        #expect(try await client.get("/v1/administrator").header("Cache-Control") != "no-store")
        await server.finish()
    }

    @Test func aRouteAddedUnderTheAdminPrefixLaterIsGuardedToo() async throws {
        let server = try await InProcessServer()
        var router = server.app.router
        router.on(.get, "/v1/admin/late") { _, context in
            Response(status: 200, body: .bytes(Array((context.caller?.name ?? "nobody").utf8)))
        }
        let refused = try await Self.answer(router, path: "/v1/admin/late", token: nil)
        #expect(refused.status == 401)
        let admitted = try await Self.answer(router, path: "/v1/admin/late", token: InProcessServer.token)
        #expect(admitted.status == 200)
        #expect(admitted.body == Array("token-1".utf8))
        await server.finish()
    }

    /// Handlers learn who called: the token's position in the configured list names it, and the
    /// token itself appears nowhere.
    @Test func theContextNamesTheCallerByItsTokensPosition() async throws {
        let server = try await InProcessServer { $0.adminTokens = AdminToken.owners(["first-token-aaaaaaaaaaaa", InProcessServer.token]) }
        var router = server.app.router
        router.on(.get, "/v1/admin/whoami-probe") { _, context in
            Response(status: 200, body: .bytes(Array((context.caller?.name ?? "nobody").utf8)))
        }
        #expect(try await Self.answer(router, path: "/v1/admin/whoami-probe", token: "first-token-aaaaaaaaaaaa").body == Array("token-1".utf8))
        #expect(try await Self.answer(router, path: "/v1/admin/whoami-probe", token: InProcessServer.token).body == Array("token-2".utf8))
        #expect(try await Self.answer(router, path: "/v1/admin/whoami-probe", token: "first-token-aaaaaaaaaaab").status == 401)
        await server.finish()

        // A token listed twice names one position, not a mix of both.
        let twice = try await InProcessServer { $0.adminTokens = AdminToken.owners([InProcessServer.token, InProcessServer.token]) }
        var again = twice.app.router
        again.on(.get, "/v1/admin/whoami-probe") { _, context in
            Response(status: 200, body: .bytes(Array((context.caller?.name ?? "nobody").utf8)))
        }
        #expect(try await Self.answer(again, path: "/v1/admin/whoami-probe", token: InProcessServer.token).body == Array("token-2".utf8))
        await twice.finish()
    }

    /// `router` answering a GET of `path` in process, with `token` as the bearer token.
    static func answer(_ router: Router<AppContext>, path: String, token: String?) async throws -> (status: Int, body: [UInt8]) {
        var headers = HTTPHeaders()
        if let token { headers.add("Authorization", "Bearer \(token)") }
        var context = AppContext(core: CoreRequestContext(requestID: "test", logger: Logger(label: "test")))
        let response: Response
        do {
            response = try await router.respond(to: Request(method: .get, path: path, headers: headers), context: &context)
        } catch let error as any HTTPResponseError {
            response = error.response(context: context.core)
        }
        guard case .bytes(let body) = response.body else { return (response.status, []) }
        return (response.status, body)
    }
}
