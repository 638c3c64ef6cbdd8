import HTTPServer

/// Cross-origin access for the configured origins only; preflights are answered here, before routing.
struct CORS: Middleware {
    let origins: Set<String>
    static let allowedMethods = "GET, HEAD, POST, PUT, DELETE, OPTIONS"
    static let allowedHeaders = "Authorization, Content-Type, Idempotency-Key, If-None-Match, X-Request-Id"
    static let exposedHeaders = "ETag, Location, Retry-After, Idempotent-Replayed, X-Request-Id"

    func handle(_ request: Request, next: any Responder) async throws -> Response {
        guard let origin = request.headers["Origin"], origins.contains(origin) || origins.contains("*") else {
            return try await next.respond(to: request)
        }
        if request.method == .options, request.headers["Access-Control-Request-Method"] != nil {
            var response = Response(status: 204)
            allow(origin, &response)
            response.headers.set("Access-Control-Allow-Methods", Self.allowedMethods)
            response.headers.set("Access-Control-Allow-Headers", Self.allowedHeaders)
            response.headers.set("Access-Control-Max-Age", "600")
            response.routePattern = "preflight"
            return response
        }
        do {
            var response = try await next.respond(to: request)
            allow(origin, &response)
            return response
        } catch let problem as any HTTPResponseConvertible {
            var response = problem.response
            allow(origin, &response)
            return response
        }
    }

    private func allow(_ origin: String, _ response: inout Response) {
        response.headers.set("Access-Control-Allow-Origin", origins.contains("*") ? "*" : origin)
        response.headers.set("Access-Control-Expose-Headers", Self.exposedHeaders)
        response.headers.add("Vary", "Origin")
    }
}
