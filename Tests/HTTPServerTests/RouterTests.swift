@testable import HTTPServer
import Logging
import Testing

@Suite struct RouterTests {
    static func text(_ value: String) -> Response {
        Response(body: .bytes(Array(value.utf8)))
    }

    static func body(_ response: Response) -> String {
        if case .bytes(let bytes) = response.body { return String(decoding: bytes, as: UTF8.self) }
        return ""
    }

    static let router: TestRouter = {
        var router = TestRouter()
        router.on(.get, "/v1/forms/{id}") { request, _ in text("form \(request.parameters["id"]!)") }
        router.on(.post, "/v1/forms/{id}/submissions") { request, _ in text("submit \(request.parameters["id"]!)") }
        router.on(.get, "/v1/forms/new") { _, _ in text("new form") }
        router.on(.get, "/v1/forms/{id}/versions/{version}") { request, _ in
            text("\(request.parameters["id"]!)@\(request.parameters["version"]!)")
        }
        router.on(.get, "/") { _, _ in text("root") }
        return router
    }()

    /// Answers in process, returning only the response.
    static func respond(_ request: Request, in router: TestRouter = router) async throws -> Response {
        try await router.answer(request).response
    }

    @Test func matchesLiteralsBeforeParameters() async throws {
        #expect(Self.body(try await Self.respond(Request(method: .get, path: "/v1/forms/new"))) == "new form")
        #expect(Self.body(try await Self.respond(Request(method: .get, path: "/v1/forms/old"))) == "form old")
    }

    @Test func backtracksFromALiteralIntoAParameter() async throws {
        let (response, route) = try await Self.router.answer(Request(method: .post, path: "/v1/forms/new/submissions"))
        #expect(Self.body(response) == "submit new")
        #expect(route == "/v1/forms/{id}/submissions")
    }

    @Test func decodesParameters() async throws {
        let response = try await Self.respond(Request(method: .get, path: "/v1/forms/a%2Fb/versions/%C3%A9"))
        #expect(Self.body(response) == "a/b@\u{e9}")
        let bad = try await Self.respond(Request(method: .get, path: "/v1/forms/%zz"))
        #expect(bad.status == 400)
    }

    @Test func answers404405AndOptions() async throws {
        let (missing, missingRoute) = try await Self.router.answer(Request(method: .get, path: "/v1/nothing"))
        #expect(missing.status == 404)
        #expect(missing.headers["Content-Type"] == "application/problem+json")
        #expect(try await Self.respond(Request(method: .get, path: "/v1/forms/x/")).status == 404)
        #expect(try await Self.respond(Request(method: .get, path: "/v1/forms//submissions")).status == 404)
        let (wrong, wrongRoute) = try await Self.router.answer(Request(method: .delete, path: "/v1/forms/x"))
        #expect(wrong.status == 405)
        #expect(wrong.headers["Allow"] == "GET, HEAD, OPTIONS")
        let (options, optionsRoute) = try await Self.router.answer(Request(method: .options, path: "/v1/forms/x/submissions"))
        #expect(options.status == 204)
        #expect(options.headers["Allow"] == "OPTIONS, POST")
        // OPTIONS * asks about the server as a whole.
        let (server, serverRoute) = try await Self.router.answer(Request(method: .options, path: "*"))
        #expect(server.status == 204)
        #expect(server.headers["Allow"] == "GET, HEAD, OPTIONS, POST")
        // Each is counted and logged under its route: a 404 names none.
        #expect(wrongRoute == "/v1/forms/{id}")
        #expect(optionsRoute == "/v1/forms/{id}/submissions")
        #expect(serverRoute == "*")
        #expect(missingRoute == nil)
    }

    @Test func answersHeadWithTheGetHandler() async throws {
        #expect(Self.body(try await Self.respond(Request(method: .head, path: "/"))) == "root")
    }

    @Test func listsRoutesInRegistrationOrder() {
        #expect(Self.router.routes.map { "\($0.0.rawValue) \($0.1)" } == [
            "GET /v1/forms/{id}", "POST /v1/forms/{id}/submissions", "GET /v1/forms/new",
            "GET /v1/forms/{id}/versions/{version}", "GET /",
        ])
    }

    @Test func handsUnmatchedRequestsToTheFallback() async throws {
        struct Fallback: Responder {
            func respond(to request: Request, context: inout BasicRequestContext) async throws -> Response {
                context.core.routePattern = "fallback"
                return RouterTests.text("fallback \(request.path)")
            }
        }
        var router = Self.router
        router.fallback = Fallback()
        let (response, route) = try await router.answer(Request(method: .get, path: "/app.js"))
        #expect(Self.body(response) == "fallback /app.js")
        #expect(route == "fallback")
    }

    /// Adds its name to the response and to a header the handler sees, so order can be read back.
    struct Tag: RouterMiddleware {
        var name: String
        func handle(_ request: Request, context: BasicRequestContext, next: TestRouter.Handler) async throws -> Response {
            var request = request
            request.headers.add("X-Seen", name)
            var response = try await next(request, context)
            response.headers.add("X-Order", name)
            return response
        }
    }

    /// Refuses every request, as an auth middleware refuses one without a token.
    struct Refuse: RouterMiddleware {
        func handle(_ request: Request, context: BasicRequestContext, next: TestRouter.Handler) async throws -> Response {
            Response(status: 401)
        }
    }

    static func echoSeen(_ request: Request, _ context: BasicRequestContext) -> Response {
        text(request.headers.values("X-Seen").joined(separator: ","))
    }

    @Test func runsAGroupsMiddlewareInFrontOfItsRoutesOnly() async throws {
        var router = TestRouter()
        router.on(.get, "/open") { request, context in Self.echoSeen(request, context) }
        router.group("/admin", middleware: Tag(name: "auth")) { admin in
            admin.on(.get, "/forms/{id}") { request, context in Self.echoSeen(request, context) }
        }
        let (admin, route) = try await router.answer(Request(method: .get, path: "/admin/forms/7"))
        #expect(Self.body(admin) == "auth")
        #expect(admin.headers.values("X-Order") == ["auth"])
        #expect(route == "/admin/forms/{id}")
        let open = try await Self.respond(Request(method: .get, path: "/open"), in: router)
        #expect(Self.body(open) == "" && open.headers.values("X-Order").isEmpty)
        // A path that only starts like the prefix is not under it.
        router.on(.get, "/administrator") { request, context in Self.echoSeen(request, context) }
        #expect(Self.body(try await Self.respond(Request(method: .get, path: "/administrator"), in: router)) == "")
    }

    /// The guarantee the admin API rests on: a route registered under a group's prefix runs behind
    /// the group's middleware even when it is added outside the group's builder.
    @Test func aRouteUnderAGroupsPrefixCannotSkipItsMiddleware() async throws {
        var router = TestRouter()
        router.group("/admin", middleware: Refuse()) { admin in
            admin.on(.get, "/forms") { _, _ in Self.text("forms") }
        }
        router.on(.get, "/admin/late") { _, _ in Self.text("late") }
        router.on(.post, "/admin") { _, _ in Self.text("root of the group") }
        for (method, path) in [(HTTPMethod.get, "/admin/forms"), (.get, "/admin/late"), (.post, "/admin")] {
            #expect(try await Self.respond(Request(method: method, path: path), in: router).status == 401, "\(path)")
        }
    }

    /// Matching backtracks from a literal into a parameter, so a parameter route beside a group's
    /// prefix would answer paths under it without the middleware; such a route cannot be added.
    @Test func aParameterRouteThatReachesUnderAGroupsPrefixIsRefused() async throws {
        var router = TestRouter()
        router.group("/admin", middleware: Refuse()) { _ in }
        await #expect(processExitsWith: .failure) {
            var router = TestRouter()
            router.group("/admin", middleware: Refuse()) { _ in }
            router.on(.get, "/{section}/forms") { _, _ in Response(status: 200) }
        }
        await #expect(processExitsWith: .failure) {
            var router = TestRouter()
            router.on(.get, "/{section}/forms") { _, _ in Response(status: 200) }
            router.group("/admin", middleware: Refuse()) { _ in }
        }
        // Beside the prefix but not reaching under it: fine.
        router.on(.get, "/public/{x}") { _, _ in Response(status: 200) }
        #expect(try await Self.respond(Request(method: .get, path: "/public/x"), in: router).status == 200)
        #expect(try await Self.respond(Request(method: .get, path: "/admin/x"), in: router).status == 404)
    }

    @Test func nestedGroupsRunOutermostFirst() async throws {
        var router = TestRouter()
        router.group("/a", middleware: Tag(name: "outer")) { _ in }
        router.group("/a/b", middleware: Tag(name: "inner")) { group in
            group.on(.get, "/c") { request, context in Self.echoSeen(request, context) }
        }
        let response = try await Self.respond(Request(method: .get, path: "/a/b/c"), in: router)
        #expect(Self.body(response) == "outer,inner")
        #expect(response.headers.values("X-Order") == ["inner", "outer"])
    }

    @Test func passesTheContextAMiddlewareExtendsToTheHandler() async throws {
        struct Named: RequestContext {
            var core: CoreRequestContext
            var caller: String?
            init(core: CoreRequestContext) { self.core = core }
        }
        struct Identify: RouterMiddleware {
            func handle(_ request: Request, context: Named, next: Router<Named>.Handler) async throws -> Response {
                var context = context
                context.caller = request.headers["X-Caller"]
                return try await next(request, context)
            }
        }
        var router = Router<Named>()
        router.group("/v1/admin", middleware: Identify()) { admin in
            admin.on(.get, "/whoami") { _, context in Self.text(context.caller ?? "nobody") }
        }
        var context = Named(core: CoreRequestContext(requestID: "r1", logger: Logger(label: "test")))
        let response = try await router.respond(
            to: Request(method: .get, path: "/v1/admin/whoami", headers: ["X-Caller": "ops"]), context: &context)
        #expect(Self.body(response) == "ops")
        #expect(context.routePattern == "/v1/admin/whoami")
        #expect(context.requestID == "r1")
    }

    @Test func buildsProblemJSON() {
        let response = Response.problem(status: 422, type: "https://x/validation", title: "Bad \"input\"", detail: "line\nbreak", extra: [("field", "mail")])
        #expect(Self.body(response) == #"{"detail":"line\nbreak","field":"mail","status":422,"title":"Bad \"input\"","type":"https://x/validation"}"#)
        #expect(response.headers["content-type"] == "application/problem+json")
    }
}

/// A handler that asks for a parameter its pattern lacks fails loudly instead of getting "".
@Suite struct RouteParameterTests {
    @Test func requireGivesTheCapturedValueOrThrows() throws {
        let parameters = Parameters([("id", "signup")])
        #expect(try parameters.require("id") == "signup")
        #expect(throws: MissingRouteParameter.self) { try parameters.require("sid") }
    }
}
