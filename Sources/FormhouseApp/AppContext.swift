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
    /// The token's name, for logs: the configured one, or `token-1`, `token-2`, … by position in a
    /// plain list, so no part of the token is shown.
    var name: String
    var role: AdminRole
    /// The form ids the token reaches; nil is every form.
    var forms: Set<String>?
    /// The route being answered, as `<METHOD> <pattern>`; set by ``AdminRoutes`` for the audit log.
    var route = ""
    /// The row the route names, when ``AdminRoutes`` read it to check the token reaches its form.
    var row: AdminRow?
}
