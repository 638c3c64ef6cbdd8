import HTTPServer

/// Cross-origin access for the configured origins only; preflights are answered here, before routing.
struct CORS: RequestHook {
    let origins: Set<String>
    static let allowedMethods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
    /// The tus fields too, so tus-js-client resumes uploads from a page on another origin.
    static let allowedHeaders = "Authorization, Content-Type, Content-Disposition, Idempotency-Key, If-Match, If-None-Match, "
        + "X-Request-Id, Tus-Resumable, Upload-Length, Upload-Metadata, Upload-Offset"
    static let exposedHeaders = "ETag, Content-Language, Location, Retry-After, Idempotent-Replayed, X-Request-Id, Content-Disposition, "
        + "Tus-Resumable, Tus-Version, Tus-Extension, Tus-Max-Size, Upload-Offset, Upload-Length, Upload-Expires, Upload-Id, Repr-Digest"

    /// Answers a preflight from an allowed origin before routing.
    func willRespond(to request: Request, context: inout CoreRequestContext) -> Response? {
        guard request.method == .options, request.headers["Access-Control-Request-Method"] != nil,
              allowedOrigin(of: request) != nil else { return nil }
        var response = Response(status: 204)
        response.headers.set("Access-Control-Allow-Methods", Self.allowedMethods)
        response.headers.set("Access-Control-Allow-Headers", Self.allowedHeaders)
        response.headers.set("Access-Control-Max-Age", "600")
        context.routePattern = "preflight"
        return response
    }

    /// Every answer to an allowed origin, problems and the preflight included, may be read by it.
    func didRespond(to request: Request, context: CoreRequestContext, response: inout Response, elapsed: Duration) {
        if let origin = allowedOrigin(of: request) {
            allow(origin, &response)
        } else if variesByOrigin {
            // Answers to other origins (or none) differ too, so a shared cache must key on Origin.
            response.headers.add("Vary", "Origin")
        }
    }

    /// The server's own refusals after a head was read (413, 503, 408) carry the same fields, so a
    /// browser on an allowed origin can read them.
    func refusalHeaders(for requestHeaders: HTTPHeaders) -> [(String, String)] {
        guard let origin = requestHeaders["Origin"], origins.contains(origin) || origins.contains("*") else {
            return variesByOrigin ? [("Vary", "Origin")] : []
        }
        var fields = [("Access-Control-Allow-Origin", origins.contains("*") ? "*" : origin),
                      ("Access-Control-Expose-Headers", Self.exposedHeaders)]
        if variesByOrigin { fields.append(("Vary", "Origin")) }
        return fields
    }

    /// Whether answers differ by `Origin`: only with a list of origins (`*` answers everyone alike).
    private var variesByOrigin: Bool { !origins.isEmpty && !origins.contains("*") }

    private func allowedOrigin(of request: Request) -> String? {
        guard let origin = request.headers["Origin"], origins.contains(origin) || origins.contains("*") else { return nil }
        return origin
    }

    private func allow(_ origin: String, _ response: inout Response) {
        response.headers.set("Access-Control-Allow-Origin", origins.contains("*") ? "*" : origin)
        response.headers.set("Access-Control-Expose-Headers", Self.exposedHeaders)
        if variesByOrigin { response.headers.add("Vary", "Origin") }
    }
}
