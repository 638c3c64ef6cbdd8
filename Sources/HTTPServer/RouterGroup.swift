/// Routes registered under one path prefix, behind the prefix's middleware (see
/// ``Router/group(_:middleware:_:)``).
public struct RouterGroup<Context: RequestContext> {
    /// The literal path the group's patterns are relative to (`/v1/admin`).
    public let prefix: String
    fileprivate(set) var router: Router<Context>

    init(prefix: String, router: Router<Context>) {
        self.prefix = prefix
        self.router = router
    }

    /// Registers `handler` for `method` on the prefix followed by `pattern` (`/forms/{id}`).
    public mutating func on(
        _ method: HTTPMethod, _ pattern: String, body: BodyMode = .buffered, _ handler: @escaping Router<Context>.Handler
    ) {
        precondition(pattern.hasPrefix("/"), "route patterns start with /: \(pattern)")
        router.on(method, prefix + pattern, body: body, handler)
    }
}

/// Code that runs in front of the handlers of a group of routes: it may answer by itself (a refused
/// token), or add to the context (the caller's identity) and call `next`.
public protocol RouterMiddleware<Context>: Sendable {
    /// The context type of the router it is added to.
    associatedtype Context: RequestContext
    /// Handles `request`, usually by calling `next` with the context it was given or one it extended.
    /// (`next` is spelled as the router's handler type so that modules built with and without
    /// nonisolated-nonsending async functions agree on it.)
    func handle(_ request: Request, context: Context, next: Router<Context>.Handler) async throws -> Response
}
