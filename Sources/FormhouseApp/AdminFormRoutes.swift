import FormEngine
import FormStore
import Foundation
import HTTPServer

/// Admin routes for forms, their versions and their submissions (docs/api.md, "Admin routes").
struct AdminFormRoutes {
    let catalog: FormCatalog
    let store: any FormStore
    let cursors: CursorSeal
    let sensitive: SensitiveValues

    /// Registers the routes in the `/v1/admin` group, whose middleware checks the token.
    func register(on admin: inout AdminRoutes) {
        admin.on(.put, "/forms/{id}", needs: .init(.edit, .form("id"))) { request, caller in try await put(request, caller: caller) }
        admin.on(.post, "/forms", needs: .init(.edit, .body)) { request, caller in try await create(request, caller: caller) }
        admin.on(.get, "/forms", needs: .init(.read)) { request, caller in try await list(request, caller: caller) }
        admin.on(.get, "/forms/{id}", needs: .init(.read, .form("id"))) { request, _ in try await get(request) }
        admin.on(.get, "/forms/{id}/versions", needs: .init(.read, .form("id"))) { request, _ in try await versions(request) }
        admin.on(.delete, "/forms/{id}", needs: .init(.edit, .form("id"))) { request, caller in try await delete(request, caller: caller) }
        admin.on(.get, "/forms/{id}/submissions", needs: .init(.export, .form("id"))) { request, caller in
            try await submissions(request, caller: caller)
        }
        admin.on(.get, "/submissions/{sid}", needs: .init(.read, .submission("sid"))) { request, caller in
            try await submission(request, caller: caller)
        }
        admin.on(.get, "/submissions/{sid}/raw", needs: .init(.read, .submission("sid"))) { request, caller in
            try await rawSubmission(request, caller: caller)
        }
    }

    func put(_ request: Request, caller: AdminCaller) async throws -> Response {
        try request.requireJSON()
        // Create-or-update: an id no form can have is a problem of the definition to be (as for POST
        // and `formhouse check`), listed with the body's own problems, not a missing form.
        let id = try request.parameters.require("id")
        let definition = try await parseDefinition(try await uploadedDefinition(request, id: id), pathID: id)
        return try await save(id: id, definition: definition, caller: caller, precondition: request.versionPrecondition)
    }

    func create(_ request: Request, caller: AdminCaller) async throws -> Response {
        try request.requireJSON()
        let definition = try await parseDefinition(try await uploadedDefinition(request, id: nil), pathID: nil)
        let id = definition.id ?? RandomID.make(prefix: "form_")
        guard FormIdentifier.isValid(id) else {
            throw APIProblem.invalidDefinition([FormIdentifier.problem])
        }
        try caller.require(form: id)
        // POST creates: an id in use is refused rather than given a new version (that is PUT's job),
        // so a "new form" cannot silently replace a live one.
        do {
            return try await save(id: id, definition: definition, caller: caller, createOnly: true)
        } catch StoreError.conflict {
            throw APIProblem(.formExists, "A form with id '\(id)' exists; PUT /v1/admin/forms/\(id) adds a version to it.")
        }
    }

    private func save(
        id: String, definition: FormDefinition, caller: AdminCaller, createOnly: Bool = false,
        precondition: (@Sendable (Int?) -> Bool)? = nil
    ) async throws -> Response {
        // A change of retention is worth its own line in the audit log's detail: it decides what is
        // deleted. Read before the save, so a save racing this one may make it stale; the versions
        // before and after, which the store records, are exact.
        var detail: [String: JSONValue] = [:]
        let before = try await catalog.current(id: id)?.definition.retentionDays
        if before != definition.retentionDays {
            detail["retentionDays"] = ["before": before.map { .number(Double($0)) } ?? .null,
                                       "after": definition.retentionDays.map { .number(Double($0)) } ?? .null]
        }
        let (form, created) = try await catalog.save(
            id: id, definition: definition, createOnly: createOnly, precondition: precondition,
            audit: caller.audit("form.saved", target: id, detail: detail))
        var response = Response.json(encoding: SavedFormJSON(form), status: created ? 201 : 200)
        response.headers.set("Location", "/v1/admin/forms/\(id)")
        response.headers.set("ETag", form.etag)
        return response
    }

    private static func idMismatch(_ bodyID: String, _ pathID: String) -> DefinitionProblem {
        DefinitionProblem(
            pointer: "/id", code: .idMismatch,
            message: "The body's id '\(bodyID)' differs from the URL's '\(pathID)'; make them equal or leave id out.")
    }

    /// The definition a request uploads: its body, or with `?from=hyperoslo` its body converted from
    /// hyperoslo/Form JSON, whose problems point into the body as sent.
    private func uploadedDefinition(_ request: Request, id: String?) async throws -> [UInt8] {
        switch try request.queryValue("from") {
        case nil:
            return request.body
        case "hyperoslo":
            let body = request.body
            do {
                return try await Offload.run { try HyperosloImport.definition(from: body, id: id).serialized() }
            } catch let error as DefinitionErrors {
                throw APIProblem.invalidDefinition(error.problems)
            }
        case let other?:
            throw APIProblem(.invalidParameter, "Unknown 'from' value '\(other)'; the one format imported is hyperoslo.")
        }
    }

    /// Parsed and compiled off the event loop: a large definition takes a good part of a second.
    private func parseDefinition(_ body: [UInt8], pathID: String?) async throws -> FormDefinition {
        var problems: [DefinitionProblem] = []
        if let pathID, !FormIdentifier.isValid(pathID) { problems.append(FormIdentifier.problem) }
        let definition: FormDefinition
        do {
            definition = try await Offload.run { try FormDefinition(json: body) }
        } catch let error as DefinitionErrors {
            // POST takes its id from the body: a bad one is listed with the body's other problems.
            if !error.problems.contains(where: { $0.pointer == "/id" }) {
                if pathID == nil, let idProblem = try await Offload.run({ FormIdentifier.problem(inDefinition: body) }) {
                    problems.append(idProblem)
                } else if let pathID, let bodyID = try await Offload.run({ FormIdentifier.bodyID(of: body) }), bodyID != pathID {
                    // PUT's other id mistake is listed with the rest too, not only once they are fixed.
                    problems.append(Self.idMismatch(bodyID, pathID))
                }
            }
            throw APIProblem.invalidDefinition(problems + error.problems)
        }
        if let pathID, let bodyID = definition.id, bodyID != pathID {
            problems.append(Self.idMismatch(bodyID, pathID))
        }
        guard problems.isEmpty else { throw APIProblem.invalidDefinition(problems) }
        return definition
    }

    /// A page of the forms list by id; the cursor is the page's last id, sealed. Without `limit` the
    /// page is the whole list, so clients written before paging existed still get every form.
    func list(_ request: Request, caller: AdminCaller) async throws -> Response {
        let (limit, after) = try pageParameters(request, scope: "forms", defaultLimit: Self.wholeList)
        let forms = try await store.listForms(after: after, limit: limit + 1)
        // A scoped token's page holds only its forms; the cursor still follows the whole list.
        let rows = forms.prefix(limit)
        return pageResponse(rows.filter { caller.reaches(form: $0.id) }.map(FormListItemJSON.init),
                            next: forms.count > limit ? rows.last?.id : nil, scope: "forms")
    }

    /// `limit` (1–500; when absent, `defaultLimit`) and the opened `cursor` of a paged list, whose
    /// cursors are sealed for `scope` so that one list's cursor is refused by another.
    private func pageParameters(_ request: Request, scope: String, defaultLimit: Int = 50) throws -> (limit: Int, after: String?) {
        let limit = try request.pageLimit(default: defaultLimit)
        return (limit, try request.pageCursor(openedBy: cursors, scope: scope))
    }

    /// The page size of a list asked for without `limit`, which is served whole (one more is
    /// fetched to learn whether there is a next page, so not `Int.max`).
    private static let wholeList = 1 << 30

    /// A page from rows fetched with one more than `limit`: the extra row only says that a next page
    /// exists, whose cursor is the last row kept.
    private func pageResponse<Row, Item: Encodable>(
        _ fetched: [Row], limit: Int, scope: String, cursor: (Row) -> String, item: (Row) -> Item
    ) -> Response {
        let rows = fetched.prefix(limit)
        return pageResponse(rows.map(item), next: fetched.count > limit ? rows.last.map(cursor) : nil, scope: scope)
    }

    private func pageResponse(_ items: [some Encodable], next: String?, scope: String) -> Response {
        .json(encoding: PageJSON(items: items, nextCursor: next.map { cursors.seal($0, scope: scope) }))
    }

    func get(_ request: Request) async throws -> Response {
        let id = try request.formID()
        let form: PublishedForm
        if let raw = try request.queryValue("version") {
            guard let version = Int(raw), version > 0 else {
                throw APIProblem(.invalidParameter, "'version' must be a positive whole number.")
            }
            guard let found = try await catalog.version(id: id, version: version) else {
                guard try await catalog.current(id: id) != nil else { throw APIProblem.notFound("There is no form '\(id)'.") }
                throw APIProblem.notFound("Form '\(id)' has no version \(version).")
            }
            form = found
        } else {
            guard let found = try await catalog.current(id: id) else { throw APIProblem.notFound("There is no form '\(id)'.") }
            form = found
        }
        var response = Response.json(form.body)
        response.headers.set("ETag", form.etag)
        return response
    }

    /// A page of a form's versions, oldest first; the cursor is the page's last version, sealed for
    /// the form. Without `limit`, every version.
    func versions(_ request: Request) async throws -> Response {
        let id = try request.formID()
        let scope = "versions:" + id
        let (limit, rawAfter) = try pageParameters(request, scope: scope, defaultLimit: Self.wholeList)
        var after: Int?
        if let rawAfter {
            guard let version = Int(rawAfter) else { throw APIProblem.invalidCursor }
            after = version
        }
        let versions = try await store.formVersions(id: id, after: after, limit: limit + 1)
        guard !versions.isEmpty || after != nil else { throw APIProblem.notFound("There is no form '\(id)'.") }
        return pageResponse(versions, limit: limit, scope: scope, cursor: { String($0.version) }, item: FormVersionJSON.init)
    }

    func delete(_ request: Request, caller: AdminCaller) async throws -> Response {
        let id = try request.formID()
        guard try await catalog.delete(id: id, precondition: request.versionPrecondition, audit: caller.audit("form.deleted", target: id)) else {
            throw APIProblem.notFound("There is no form '\(id)'.")
        }
        return Response(status: 204)
    }

    func submissions(_ request: Request, caller: AdminCaller) async throws -> Response {
        let id = try request.formID()
        guard try await store.formExists(id: id, includingDeleted: true) else {
            throw APIProblem.notFound("There is no form '\(id)'.")
        }
        let format = try SubmissionListFormat(query: request.queryValue("format"))
        if format != .json {
            // An export is every submission; a page's parameters taken silently would look honoured.
            for name in ["limit", "cursor"] where request.query[name] != nil {
                throw APIProblem(.invalidParameter, "'\(name)' pages the JSON list; an export always has every submission.")
            }
        }
        let includesSensitive = try request.includesSensitiveValues(caller: caller)
        switch format {
        case .json:
            return try await page(formID: id, request: request, includesSensitive: includesSensitive)
        case .csv:
            let view = try await exportView(formID: id, includesSensitive: includesSensitive)
            return SubmissionExport.csv(store: store, formID: id, columns: view.columns, view: view.values)
        case .ndjson:
            let view = try await exportView(formID: id, includesSensitive: includesSensitive)
            return SubmissionExport.ndjson(store: store, formID: id, view: view.values)
        }
    }

    private func page(formID: String, request: Request, includesSensitive: Bool) async throws -> Response {
        let scope = "submissions:" + formID
        let (limit, inner) = try pageParameters(request, scope: scope)
        var cursor: SubmissionCursor?
        if let inner {
            guard let decoded = SubmissionCursor(token: inner) else { throw APIProblem.invalidCursor }
            cursor = decoded
        }
        let page = try await store.submissions(formID: formID, after: cursor, limit: limit)
        let view = try await valuesView(formID: formID, versions: Set(page.items.map(\.formVersion)), includesSensitive: includesSensitive)
        let items = try page.items.map { SubmissionJSON($0, values: try view.values(of: $0)) }
        return pageResponse(items, next: page.nextCursor?.token, scope: scope)
    }

    /// A view of the submissions of `versions` of the form, through the catalog's cache.
    private func valuesView(formID: String, versions: Set<Int>, includesSensitive: Bool) async throws -> SubmissionValuesView {
        var definitions: [(Int, FormDefinition)] = []
        for version in versions {
            if let form = try await catalog.version(id: formID, version: version) { definitions.append((version, form.definition)) }
        }
        return SubmissionValuesView(includesSensitive: includesSensitive, sensitive: sensitive, definitions: definitions)
    }

    /// CSV columns: every input of every stored version, the latest version's first and in its order,
    /// then what only older versions had (newest first), so submissions to an earlier version keep all
    /// their values; and, per version, which columns are its inputs (without its sensitive ones unless
    /// they are shown). And the view of the values, which holds the definitions of the versions with
    /// sensitive inputs. Definitions are read from the store (``FormStore/storedDefinitions(formID:)``),
    /// not through the catalog, whose cache would otherwise keep every version of the form.
    private func exportView(formID: String, includesSensitive: Bool) async throws -> (columns: SubmissionExport.Columns, values: SubmissionValuesView) {
        var columns: [String] = []
        var index: [String: Int] = [:]
        var pathsOf: [Int: [String]] = [:]
        var sensitiveDefinitions: [(Int, FormDefinition)] = []
        for (version, definition) in try await store.storedDefinitions(formID: formID) {
            var paths = definition.inputPaths
            if definition.hasSensitiveInputs {
                sensitiveDefinitions.append((version, definition))
                if !includesSensitive { paths.removeAll(where: Set(definition.sensitiveInputPaths).contains) }
            }
            for path in paths where index[path] == nil {
                index[path] = columns.count
                columns.append(path)
            }
            pathsOf[version] = paths
        }
        var inputsOf: [Int: [Bool]] = [:]
        for (version, paths) in pathsOf {
            var inputs = [Bool](repeating: false, count: columns.count)
            for path in paths { if let i = index[path] { inputs[i] = true } }
            inputsOf[version] = inputs
        }
        return (SubmissionExport.Columns(paths: columns, inputsOf: inputsOf),
                SubmissionValuesView(includesSensitive: includesSensitive, sensitive: sensitive, definitions: sensitiveDefinitions))
    }

    func submission(_ request: Request, caller: AdminCaller) async throws -> Response {
        let includesSensitive = try request.includesSensitiveValues(caller: caller)
        let record = try await findSubmission(request, caller: caller)
        let view = try await valuesView(formID: record.formID, versions: [record.formVersion], includesSensitive: includesSensitive)
        return .json(encoding: SubmissionJSON(record, values: try view.values(of: record), withRequestDetails: true))
    }

    /// The body exactly as the client sent it, byte for byte. A body holding sensitive values (it is
    /// stored sealed) is only for an owner who asks with `?sensitive=include`.
    func rawSubmission(_ request: Request, caller: AdminCaller) async throws -> Response {
        let includesSensitive = try request.includesSensitiveValues(caller: caller)
        let record = try await findSubmission(request, caller: caller)
        let view = try await valuesView(formID: record.formID, versions: [record.formVersion], includesSensitive: includesSensitive)
        guard SensitiveValues.isSealed(record.rawBody) || view.hasSensitiveInputs(version: record.formVersion) else {
            return .json(record.rawBody)
        }
        guard includesSensitive else {
            throw APIProblem(.forbidden, "Submission '\(record.id)' holds the values of sensitive inputs, and so does its body: "
                + "\(AdminRole.owner.withArticle) may read it with ?sensitive=include.")
        }
        return .json(try sensitive.opened(record.rawBody, .rawBody, rowID: record.id))
    }

    private func findSubmission(_ request: Request, caller: AdminCaller) async throws -> SubmissionRecord {
        let sid = try request.parameters.require("sid")
        guard let record = try await caller.submission(sid, from: store) else {
            throw APIProblem.notFound("There is no submission '\(sid)'.")
        }
        return record
    }
}

extension Request {
    /// `If-Match` and `If-None-Match` on a form's admin PUT or DELETE (RFC 9110 §13.1), as a test of
    /// the live current version that the store runs in the write's own transaction, so two admins
    /// editing one form cannot overwrite each other unseen. Header lines of one field are one list.
    var versionPrecondition: (@Sendable (Int?) -> Bool)? {
        let ifMatch = headers.list("If-Match")
        let ifNoneMatch = headers.list("If-None-Match")
        guard ifMatch != nil || ifNoneMatch != nil else { return nil }
        return { current in
            let etag = current.map { "\"\($0)\"" }
            // If-Match compares strongly: a weak tag never matches, `*` needs a current version.
            if let ifMatch, !(etag.map { ETagList.matches(ifMatch, $0, weak: false) } ?? false) { return false }
            // If-None-Match compares weakly; `*` fails whenever there is a current version.
            if let ifNoneMatch, let etag, ETagList.matches(ifNoneMatch, etag) { return false }
            return true
        }
    }
}

/// How a form's submissions are listed: a JSON page, or every one as CSV or NDJSON (`?format=`).
enum SubmissionListFormat: String {
    case json, csv, ndjson

    /// The format a `format` query parameter names; absent is a JSON page.
    init(query: String?) throws {
        guard let query else { self = .json; return }
        guard let format = Self(rawValue: query) else {
            throw APIProblem(.invalidParameter, "Unknown format '\(query)'; use json, csv or ndjson.")
        }
        self = format
    }
}
