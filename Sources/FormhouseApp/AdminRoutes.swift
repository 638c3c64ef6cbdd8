import FormStore
import HTTPServer

/// The `/v1/admin` group, whose routes each declare what they need of the token; the declarations
/// are kept (``needs``) so that a test can check every route against every role.
struct AdminRoutes {
    var group: RouterGroup<AppContext>
    let store: any FormStore
    /// What each route needs, by `"<METHOD> <pattern>"` (`GET /v1/admin/forms/{id}`).
    private(set) var needs: [String: AdminNeed] = [:]

    init(group: RouterGroup<AppContext>, store: any FormStore) {
        self.group = group
        self.store = store
    }

    /// Registers `handler` behind the check of `need`: the role first, then the target form.
    mutating func on(
        _ method: HTTPMethod, _ pattern: String, needs need: AdminNeed, body: BodyMode = .buffered,
        _ handler: @escaping @Sendable (Request, AdminCaller) async throws -> Response
    ) {
        let route = "\(method.rawValue) \(group.prefix)\(pattern)"
        needs[route] = need
        let store = self.store
        group.on(method, pattern, body: body) { request, context in
            guard var caller = context.caller else { throw APIProblem.unauthorized("Send 'Authorization: Bearer <token>'.") }
            caller.route = route
            try caller.require(need, request)
            if need.target == .everyForm, caller.forms != nil {
                throw APIProblem(.forbidden, "Token '\(caller.name)' is limited to some forms; this needs \(need.leastRole.withArticle) of every form.")
            }
            if caller.forms != nil, let form = try await Self.form(of: need.target, request, store, keepingRowOn: &caller) {
                try caller.require(form: form)
            }
            return try await handler(request, caller)
        }
    }

    /// The form `target` names in `request`; nil when it names none, or a row that does not exist. A row
    /// read for its form is kept on `caller`, so that the handler does not read it again.
    private static func form(
        of target: AdminNeed.Target, _ request: Request, _ store: any FormStore, keepingRowOn caller: inout AdminCaller
    ) async throws -> String? {
        if case .form(let name) = target { return try request.parameters.require(name) }
        caller.row = try await AdminRow.read(target, request, store)
        return caller.row?.formID
    }
}
