/// Synchronous code run around every request, for what only looks at the request or adjusts the final
/// response: metrics, CORS headers, a preflight answer.
///
/// Prefer it to a ``RouterMiddleware`` for such code: a middleware is one more async frame per
/// request and, after its `await`, one more check of the task's executor, which together cost more
/// than the middleware's own work on a path that answers in tens of microseconds.
public protocol RequestHook: Sendable {
    /// Runs before the responder. A response returned here is the answer and the responder is not
    /// called (the hooks after this one are skipped too); `nil` lets the request go on. A hook that
    /// answers names what answered in `context.routePattern`.
    func willRespond(to request: Request, context: inout CoreRequestContext) -> Response?

    /// Runs, for every hook and in reverse order, with the final response: thrown errors have
    /// already become responses, early answers included. `elapsed` runs from just before the first
    /// `willRespond`. `context` names the route that answered, if any.
    func didRespond(to request: Request, context: CoreRequestContext, response: inout Response, elapsed: Duration)

    /// Runs, for every hook, when the server answered by itself with `status` and closed the
    /// connection before any request reached the hooks: malformed HTTP, a body or head over its
    /// limit, a request not received in time.
    func didRefuse(status: Int)

    /// Fields to add to a refusal the server answers by itself after the request's head was read
    /// (a body over its limit, too many bodies arriving, a body not received in time), given that
    /// head's fields: a browser can only read the refusal with the CORS fields.
    func refusalHeaders(for requestHeaders: HTTPHeaders) -> [(String, String)]
}

extension RequestHook {
    public func willRespond(to request: Request, context: inout CoreRequestContext) -> Response? { nil }
    public func didRefuse(status: Int) {}
    public func refusalHeaders(for requestHeaders: HTTPHeaders) -> [(String, String)] { [] }
}
