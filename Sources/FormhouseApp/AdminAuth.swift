import HTTPServer

/// The bearer-token check in front of every `/v1/admin` route: the router runs it for every route
/// under the group's prefix, and it names the caller in the context.
///
/// Tokens are compared as SHA-256 digests with a constant-time loop over every configured token, so
/// neither the length nor the position of a mismatch leaks through timing. Tokens are never logged.
struct AdminAuth: RouterMiddleware {
    private let tokens: [AdminToken]

    init(tokens: [AdminToken]) {
        self.tokens = tokens
    }

    func handle(_ request: Request, context: AppContext, next: Router<AppContext>.Handler) async throws -> Response {
        var context = context
        context.caller = try authorize(request)
        return try await next(request, context)
    }

    /// The caller whose token `request` presents; 401 otherwise.
    func authorize(_ request: Request) throws -> AdminCaller {
        guard !tokens.isEmpty else {
            throw APIProblem.unauthorized("No admin token is configured; set FORMHOUSE_ADMIN_TOKENS to enable the admin API.")
        }
        guard request.headers["Authorization"] != nil else {
            throw APIProblem.unauthorized("Send 'Authorization: Bearer <token>'.")
        }
        guard let token = request.bearerToken else {
            throw APIProblem.unauthorized("Use the Bearer scheme: 'Authorization: Bearer <token>'.")
        }
        let presented = AdminToken.digest(of: token)
        // Every digest is compared, each to the end, and the match recorded without a branch on it.
        var matched = 0
        for (position, configured) in tokens.enumerated() {
            let equal = ConstantTime.equal(configured.digest, presented) ? 1 : 0
            // The last matching position is the caller (the configuration refuses a token given twice).
            matched = max(matched, equal * (position + 1))
        }
        guard matched > 0 else { throw APIProblem.unauthorized("The token is not valid.", invalidToken: true) }
        let caller = tokens[matched - 1]
        return AdminCaller(name: caller.name, role: caller.role, forms: caller.forms)
    }
}
