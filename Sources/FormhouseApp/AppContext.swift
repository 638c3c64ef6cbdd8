import HTTPServer

/// The context of every request Formhouse answers: the server's core fields (logger, request id,
/// route) and, on `/v1/admin` routes, who called.
struct AppContext: RequestContext {
    var core: CoreRequestContext
    /// Set by ``AdminAuth`` before any admin handler runs; nil on public routes.
    var caller: AdminCaller?

    init(core: CoreRequestContext) {
        self.core = core
    }
}

/// Who presented a valid admin token. Tokens themselves are never kept here, nor logged.
struct AdminCaller: Sendable, Equatable {
    /// The token's name, for logs: `token-1`, `token-2`, … by position in the configured list, so no
    /// part of the token is shown.
    var name: String
}
