@testable import HTTPServer
import Testing

@Suite struct RouterTests {
    static func text(_ value: String) -> Response {
        Response(body: .bytes(Array(value.utf8)))
    }

    static func body(_ response: Response) -> String {
        if case .bytes(let bytes) = response.body { return String(decoding: bytes, as: UTF8.self) }
        return ""
    }

    static let router: Router = {
        var router = Router()
        router.on(.get, "/v1/forms/{id}") { request in text("form \(request.parameters["id"]!)") }
        router.on(.post, "/v1/forms/{id}/submissions") { request in text("submit \(request.parameters["id"]!)") }
        router.on(.get, "/v1/forms/new") { _ in text("new form") }
        router.on(.get, "/v1/forms/{id}/versions/{version}") { request in
            text("\(request.parameters["id"]!)@\(request.parameters["version"]!)")
        }
        router.on(.get, "/") { _ in text("root") }
        return router
    }()

    @Test func matchesLiteralsBeforeParameters() async throws {
        #expect(Self.body(try await Self.router.respond(to: Request(method: .get, path: "/v1/forms/new"))) == "new form")
        #expect(Self.body(try await Self.router.respond(to: Request(method: .get, path: "/v1/forms/old"))) == "form old")
    }

    @Test func backtracksFromALiteralIntoAParameter() async throws {
        let response = try await Self.router.respond(to: Request(method: .post, path: "/v1/forms/new/submissions"))
        #expect(Self.body(response) == "submit new")
        #expect(response.routePattern == "/v1/forms/{id}/submissions")
    }

    @Test func decodesParameters() async throws {
        let response = try await Self.router.respond(to: Request(method: .get, path: "/v1/forms/a%2Fb/versions/%C3%A9"))
        #expect(Self.body(response) == "a/b@\u{e9}")
        let bad = try await Self.router.respond(to: Request(method: .get, path: "/v1/forms/%zz"))
        #expect(bad.status == 400)
    }

    @Test func answers404405AndOptions() async throws {
        let missing = try await Self.router.respond(to: Request(method: .get, path: "/v1/nothing"))
        #expect(missing.status == 404)
        #expect(missing.headers["Content-Type"] == "application/problem+json")
        #expect(try await Self.router.respond(to: Request(method: .get, path: "/v1/forms/x/")).status == 404)
        #expect(try await Self.router.respond(to: Request(method: .get, path: "/v1/forms//submissions")).status == 404)
        let wrong = try await Self.router.respond(to: Request(method: .delete, path: "/v1/forms/x"))
        #expect(wrong.status == 405)
        #expect(wrong.headers["Allow"] == "GET, HEAD, OPTIONS")
        let options = try await Self.router.respond(to: Request(method: .options, path: "/v1/forms/x/submissions"))
        #expect(options.status == 204)
        #expect(options.headers["Allow"] == "OPTIONS, POST")
        // OPTIONS * asks about the server as a whole.
        let server = try await Self.router.respond(to: Request(method: .options, path: "*"))
        #expect(server.status == 204)
        #expect(server.headers["Allow"] == "GET, HEAD, OPTIONS, POST")
        // Each is counted and logged under its route: a 404 names none.
        #expect(wrong.routePattern == "/v1/forms/{id}")
        #expect(options.routePattern == "/v1/forms/{id}/submissions")
        #expect(server.routePattern == "*")
        #expect(missing.routePattern == nil)
    }

    @Test func answersHeadWithTheGetHandler() async throws {
        #expect(Self.body(try await Self.router.respond(to: Request(method: .head, path: "/"))) == "root")
    }

    @Test func listsRoutesInRegistrationOrder() {
        #expect(Self.router.routes.map { "\($0.0.rawValue) \($0.1)" } == [
            "GET /v1/forms/{id}", "POST /v1/forms/{id}/submissions", "GET /v1/forms/new",
            "GET /v1/forms/{id}/versions/{version}", "GET /",
        ])
    }

    @Test func handsUnmatchedRequestsToTheFallback() async throws {
        var router = Self.router
        router.fallback = ClosureResponder { request in Self.text("fallback \(request.path)") }
        #expect(Self.body(try await router.respond(to: Request(method: .get, path: "/app.js"))) == "fallback /app.js")
    }

    @Test func runsMiddlewareOutermostFirst() async throws {
        struct Tag: Middleware {
            var name: String
            func handle(_ request: Request, next: any Responder) async throws -> Response {
                var response = try await next.respond(to: request)
                response.headers.add("X-Order", name)
                return response
            }
        }
        let chain = MiddlewareChain([Tag(name: "outer"), Tag(name: "inner")], responder: Self.router)
        let response = try await chain.respond(to: Request(method: .get, path: "/"))
        #expect(response.headers.values("X-Order") == ["inner", "outer"])
    }

    @Test func buildsProblemJSON() {
        let response = Response.problem(status: 422, type: "https://x/validation", title: "Bad \"input\"", detail: "line\nbreak", extra: [("field", "mail")])
        #expect(Self.body(response) == #"{"type":"https://x/validation","title":"Bad \"input\"","status":422,"detail":"line\nbreak","field":"mail"}"#)
        #expect(response.headers["content-type"] == "application/problem+json")
    }
}
