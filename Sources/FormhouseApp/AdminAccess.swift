import FormStore
import HTTPServer

/// What an admin route needs of its caller's token: an action its role may take, on the form the
/// request is about. Declared as each route is registered (``AdminRoutes/on(_:_:needs:body:_:)``).
struct AdminNeed: Sendable, Hashable {
    enum Action: Sendable, Hashable {
        /// Any valid token.
        case any
        /// A viewer's: reading forms, submissions, deliveries, files and stats.
        case read
        /// A viewer's, or an exporter's when the request asks for `?format=csv` or `ndjson`.
        case export
        /// An editor's: changing forms and webhooks.
        case edit
    }

    /// Where the request names its form.
    enum Target: Sendable, Hashable {
        /// Nowhere: the route is about no form, or its handler filters a list by the caller's forms.
        case none
        /// In the body: the handler checks the form it reads (`POST /forms`).
        case body
        /// The path parameter holds a form id.
        case form(String)
        /// The path parameter holds the id of a row whose form is the target; an unknown row is left
        /// to the handler's 404.
        case submission(String), webhook(String), delivery(String), file(String)
    }

    let action: Action
    let target: Target

    init(_ action: Action, _ target: Target = .none) {
        self.action = action
        self.target = target
    }

    /// The export formats an exporter may ask for.
    static let exportFormats: Set<String> = ["csv", "ndjson"]

    /// Whether `role` may take the action on a request whose `format` query parameter is `format`.
    func permits(_ role: AdminRole, format: String?) -> Bool {
        switch action {
        case .any: true
        case .read: role <= .viewer
        case .export: role <= .viewer || (role == .exporter && format.map(Self.exportFormats.contains) == true)
        case .edit: role <= .editor
        }
    }

    /// The role a refusal names.
    var leastRole: AdminRole {
        switch action {
        case .any: .exporter
        case .read, .export: .viewer
        case .edit: .editor
        }
    }
}

extension AdminCaller {
    /// Whether the token reaches form `id`.
    func reaches(form id: String) -> Bool { forms?.contains(id) ?? true }

    /// 403 unless the token reaches form `id`.
    func require(form id: String) throws {
        guard reaches(form: id) else {
            throw APIProblem(.forbidden, "Token '\(name)' does not reach form '\(id)'.")
        }
    }

    /// 403 unless the token's role may take `need`'s action on `request`.
    func require(_ need: AdminNeed, _ request: Request) throws {
        guard need.permits(role, format: try request.queryValue("format")) else {
            let exportNote = need.action == .export && role == .exporter ? " (an exporter may only ask for ?format=csv or ndjson)" : ""
            throw APIProblem(.forbidden, "Token '\(name)' is \(role.withArticle); this needs \(need.leastRole.withArticle)\(exportNote).")
        }
    }
}

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
        needs["\(method.rawValue) \(group.prefix)\(pattern)"] = need
        let store = self.store
        group.on(method, pattern, body: body) { request, context in
            guard let caller = context.caller else { throw APIProblem.unauthorized("Send 'Authorization: Bearer <token>'.") }
            try caller.require(need, request)
            if caller.forms != nil, let form = try await Self.form(of: need.target, request, store) {
                try caller.require(form: form)
            }
            return try await handler(request, caller)
        }
    }

    /// The form `target` names in `request`; nil when it names none, or a row that does not exist.
    private static func form(of target: AdminNeed.Target, _ request: Request, _ store: any FormStore) async throws -> String? {
        switch target {
        case .none, .body: nil
        case .form(let name): try request.parameters.require(name)
        case .submission(let name): try await store.submission(id: request.parameters.require(name))?.formID
        case .webhook(let name): try await store.endpoint(id: request.parameters.require(name))?.formID
        case .delivery(let name): try await store.delivery(id: request.parameters.require(name))?.formID
        case .file(let name): try await store.upload(id: request.parameters.require(name))?.formID
        }
    }
}
