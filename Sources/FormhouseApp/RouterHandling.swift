import HTTPServer

extension Router {
    /// Registers a handler whose API problems become responses inside the route, so the response
    /// keeps its route pattern for metrics and the access log.
    mutating func handle(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping @Sendable (Request) async throws -> Response) {
        on(method, pattern) { request in
            do {
                return try await handler(request)
            } catch let problem as APIProblem {
                return problem.response
            }
        }
    }
}
