/// Anything that answers requests: a router, or a server's fallback for paths no route serves.
///
/// The context is `inout` so that what the responder learns about the request (the route that
/// matched) reaches the hooks and the access log, which run outside it; nothing travels back on the
/// response.
public protocol Responder<Context>: Sendable {
    /// The context type this responder's handlers receive.
    associatedtype Context: RequestContext
    /// Produces the response for `request`; a thrown error becomes a problem response (see
    /// ``HTTPResponseError``).
    func respond(to request: Request, context: inout Context) async throws -> Response
    /// How the request to `path` with `method` takes its body, asked as soon as its head has arrived.
    func bodyMode(method: HTTPMethod, path: String) -> BodyMode
}

extension Responder {
    /// Every body is read whole.
    public func bodyMode(method: HTTPMethod, path: String) -> BodyMode { .buffered }
}

/// An error that knows its HTTP answer; the server sends it instead of a 500.
public protocol HTTPResponseError: Error {
    /// The response to send for this error. `context` is the failed request's: its logger carries
    /// the request id, for errors whose cause belongs in the log rather than in the answer.
    func response(context: CoreRequestContext) -> Response
}
