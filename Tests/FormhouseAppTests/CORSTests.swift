import HTTPServer
import Logging
import Testing
@testable import FormhouseApp

/// The CORS hook on its own: which answers get the headers, and which preflights it answers.
@Suite struct CORSTests {
    let cors = CORS(origins: ["https://app.example"])

    func request(_ method: HTTPMethod = .get, origin: String?, preflight: Bool = false) -> Request {
        var headers = HTTPHeaders()
        if let origin { headers.add("Origin", origin) }
        if preflight { headers.add("Access-Control-Request-Method", "POST") }
        return Request(method: method, path: "/v1/forms/x/submissions", headers: headers)
    }

    static let context = CoreRequestContext(requestID: "test", logger: Logger(label: "test"))

    /// The hook's early answer, if any, with a fresh context.
    func willRespond(_ request: Request) -> Response? {
        var context = Self.context
        return cors.willRespond(to: request, context: &context)
    }

    @Test func everyAnswerToAnAllowedOriginIsReadableIncludingA500() {
        for status in [200, 201, 404, 422, 500, 503] {
            var response = Response.problem(status: status, type: "about:blank", title: "x", detail: "x")
            cors.didRespond(to: request(origin: "https://app.example"), context: Self.context, response: &response, elapsed: .zero)
            #expect(response.headers["Access-Control-Allow-Origin"] == "https://app.example", "\(status)")
            #expect(response.headers.values("Vary") == ["Origin"], "\(status)")
            #expect(response.headers["Access-Control-Expose-Headers"]?.contains("Idempotent-Replayed") == true)
        }
    }

    @Test func otherOriginsAndNoOriginGetNothingButVary() {
        for origin in ["https://evil.example", "https://app.example.evil", nil] as [String?] {
            var response = Response.problem(status: 500, type: "about:blank", title: "x", detail: "x")
            cors.didRespond(to: request(origin: origin), context: Self.context, response: &response, elapsed: .zero)
            #expect(response.headers["Access-Control-Allow-Origin"] == nil)
            // Their answer differs from an allowed origin's, so caches must key on Origin.
            #expect(response.headers.values("Vary") == ["Origin"])
            #expect(willRespond(request(.options, origin: origin, preflight: true)) == nil)
        }
    }

    @Test func answersOnlyRealPreflightsFromAllowedOrigins() throws {
        var context = Self.context
        let preflight = try #require(cors.willRespond(
            to: request(.options, origin: "https://app.example", preflight: true), context: &context))
        #expect(preflight.status == 204)
        #expect(context.routePattern == "preflight")
        #expect(preflight.headers["Access-Control-Allow-Methods"]?.contains("POST") == true)
        // A plain OPTIONS (no Access-Control-Request-Method) goes on to the router.
        #expect(willRespond(request(.options, origin: "https://app.example")) == nil)
        #expect(willRespond(request(.post, origin: "https://app.example", preflight: true)) == nil)
    }

    @Test func aWildcardAllowsEveryOrigin() {
        var response = Response(status: 200)
        CORS(origins: ["*"]).didRespond(to: request(origin: "https://any.example"), context: Self.context, response: &response, elapsed: .zero)
        #expect(response.headers["Access-Control-Allow-Origin"] == "*")
        #expect(!response.headers.contains("Vary"))
        // Without CORS configured nothing varies either.
        var plain = Response(status: 200)
        CORS(origins: []).didRespond(to: request(origin: "https://any.example"), context: Self.context, response: &plain, elapsed: .zero)
        #expect(!plain.headers.contains("Vary") && !plain.headers.contains("Access-Control-Allow-Origin"))
    }

    /// The server's own refusals after a head was read (a body over the limit) get the same fields.
    @Test func refusalsCarryTheSameFields() {
        var allowed = HTTPHeaders()
        allowed.add("Origin", "https://app.example")
        let fields = Dictionary(cors.refusalHeaders(for: allowed), uniquingKeysWith: { $1 })
        #expect(fields["Access-Control-Allow-Origin"] == "https://app.example" && fields["Vary"] == "Origin")
        #expect(fields["Access-Control-Expose-Headers"]?.contains("Retry-After") == true)
        var other = HTTPHeaders()
        other.add("Origin", "https://evil.example")
        #expect(cors.refusalHeaders(for: other).map(\.0) == ["Vary"])
        #expect(cors.refusalHeaders(for: HTTPHeaders()).map(\.0) == ["Vary"])
    }
}
