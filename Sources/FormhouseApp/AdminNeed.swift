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
        /// An owner's alone: reading the audit log, erasing submissions.
        case own
    }

    /// Where the request names its form.
    enum Target: Sendable, Hashable {
        /// Nowhere: the route is about no form, or its handler filters a list by the caller's forms.
        case none
        /// Every form at once (the audit log): only a token that reaches every form may.
        case everyForm
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
        case .own: role == .owner
        }
    }

    /// The role a refusal names.
    var leastRole: AdminRole {
        switch action {
        case .any: .exporter
        case .read, .export: .viewer
        case .edit: .editor
        case .own: .owner
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
        let format = need.action == .export ? try request.queryValue("format") : nil
        guard need.permits(role, format: format) else {
            let exportNote = need.action == .export && role == .exporter ? " (an exporter may only ask for ?format=csv or ndjson)" : ""
            throw APIProblem(.forbidden, "Token '\(name)' is \(role.withArticle); this needs \(need.leastRole.withArticle)\(exportNote).")
        }
    }
}
