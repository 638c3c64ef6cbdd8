import FormEngine
import FormStore
import Foundation
import HTTPServer
import Logging
import Synchronization

/// Forgetting on request: `DELETE /v1/admin/submissions/{sid}` and `POST /v1/admin/forms/{id}/erasure`
/// (erasure by value). Both remove the submissions with their raw bodies, deliveries and files, and
/// record in the audit log that they did, never what was erased. Owners only.
struct ErasureRoutes {
    let store: any FormStore
    /// Opens sealed values of sensitive inputs, so that they can be matched too.
    let sensitive: SensitiveValues
    /// Deletes the uploads let go, so that files are gone when the erasure answers.
    let deleteReleasedFiles: @Sendable () async throws -> Void
    static let logger = Logger(label: "formhouse.erasure")
    /// Submissions erased per transaction (and per audit entry) by an erasure by value.
    static let batch = 500

    func register(on admin: inout AdminRoutes) {
        admin.on(.delete, "/submissions/{sid}", needs: .init(.own, .submission("sid"))) { request, caller in
            try await eraseOne(request, caller: caller)
        }
        admin.on(.post, "/forms/{id}/erasure", needs: .init(.own, .form("id"))) { request, caller in
            try await eraseByValue(request, caller: caller)
        }
    }

    func eraseOne(_ request: Request, caller: AdminCaller) async throws -> Response {
        let sid = try request.parameters.require("sid")
        guard let record = try await caller.submission(sid, from: store) else { throw APIProblem.notFound("There is no submission '\(sid)'.") }
        let erased = try await store.eraseSubmissions(
            ids: [sid], formID: record.formID, audit: caller.audit("submission.erased", target: sid, detail: ["formId": .string(record.formID)]))
        guard erased.submissions == 1 else { throw APIProblem.notFound("There is no submission '\(sid)'.") }
        try await releaseFiles(erased)
        return Response(status: 204)
    }

    /// What `POST /forms/{id}/erasure` asks to erase.
    struct Erasure: Sendable {
        let field: String
        let equals: JSONValue
        let ignoreCase: Bool
    }

    func eraseByValue(_ request: Request, caller: AdminCaller) async throws -> Response {
        try request.requireJSON()
        let formID = try request.formID()
        guard try await store.formExists(id: formID, includingDeleted: true) else {
            throw APIProblem.notFound("There is no form '\(formID)'.")
        }
        let asked = try Self.parse(request.body)
        // Any version's input: values stored under an input since renamed or removed are someone's too.
        var paths: [String] = []
        let definitions = try await store.storedDefinitions(formID: formID)
        for (_, definition) in definitions {
            for path in definition.inputPaths where !paths.contains(path) { paths.append(path) }
        }
        guard paths.contains(asked.field) else {
            throw APIProblem(.invalidBody, "Form '\(formID)' has no input '\(asked.field)' in any version; name one of: \(paths.joined(separator: ", ")).")
        }
        let matching = Matches()
        let view = SubmissionValuesView(includesSensitive: true, sensitive: sensitive, definitions: definitions)
        try await store.forEachSubmission(formID: formID, batchSize: 500, maxBatchBytes: 8 << 20) { batch in
            for record in batch {
                guard let found = try view.values(of: record).value(atInputPath: asked.field) else { continue }
                if Self.matches(found, asked) { matching.add(record.id) }
            }
        }
        var total = DeletedSubmissions()
        let found = matching.ids
        for start in stride(from: 0, to: found.count, by: Self.batch) {
            let ids = Array(found[start..<min(start + Self.batch, found.count)])
            let erased = try await store.eraseSubmissions(
                ids: ids, formID: formID,
                audit: caller.audit("submissions.erased", target: formID, detail: ["field": .string(asked.field), "erased": .number(Double(ids.count))]))
            total += erased
        }
        try await releaseFiles(total)
        return .json(encoding: ErasureJSON(erased: total.submissions, deliveries: total.deliveries, files: total.files))
    }

    /// Files are deleted now rather than at the sweeper's next pass (if that fails they are still
    /// unbound and expired, and the sweeper's pass deletes them); then the store scrubs what the
    /// deleted rows, upload records included, left behind.
    private func releaseFiles(_ erased: DeletedSubmissions) async throws {
        guard erased.submissions > 0 else { return }
        if erased.files > 0 {
            do {
                try await deleteReleasedFiles()
            } catch {
                Self.logger.warning("an erasure's files are left to the upload sweeper", metadata: ["error": "\(error)"])
            }
        }
        do {
            try await store.scrubDeletedData()
        } catch {
            Self.logger.warning("an erasure's deleted rows are scrubbed at the next checkpoint", metadata: ["error": "\(error)"])
        }
    }

    static func parse(_ body: [UInt8]) throws -> Erasure {
        let usage = #"Send {"field": "<input path>", "equals": <the value>} and optionally "ignoreCase": true."#
        guard case .object(let object)? = try? JSONValue(parsing: body) else { throw APIProblem(.invalidBody, usage) }
        if let unknown = object.keys.first(where: { !["field", "equals", "ignoreCase"].contains($0) }) {
            throw APIProblem(.invalidBody, "'\(unknown)' is not a member of an erasure. \(usage)")
        }
        guard case .string(let field)? = object["field"], !field.isEmpty, field.utf8.count <= 500 else {
            throw APIProblem(.invalidBody, "'field' must be an input path of 1 to 500 bytes. \(usage)")
        }
        guard let equals = object["equals"], equals.stringValue != nil || equals.numberValue != nil || equals.boolValue != nil else {
            throw APIProblem(.invalidBody, "'equals' must be a string, number or boolean. \(usage)")
        }
        var ignoreCase = false
        if let flag = object["ignoreCase"] {
            guard case .bool(let value) = flag else { throw APIProblem(.invalidBody, "'ignoreCase' must be true or false.") }
            ignoreCase = value
        }
        return Erasure(field: field, equals: equals, ignoreCase: ignoreCase)
    }

    /// Whether a stored value (an array per repeat level) holds the asked value.
    static func matches(_ value: JSONValue, _ asked: Erasure) -> Bool {
        switch (value, asked.equals) {
        case (.array(let items), _): items.contains { matches($0, asked) }
        case let (.string(stored), .string(wanted)) where asked.ignoreCase:
            stored.lowercased() == wanted.lowercased()
        default: value == asked.equals
        }
    }

    /// The ids an erasure found, gathered across the export's batches.
    private final class Matches: Sendable {
        private let found = Mutex<[String]>([])
        func add(_ id: String) { found.withLock { $0.append(id) } }
        var ids: [String] { found.withLock { $0 } }
    }
}

/// The answer to an erasure by value.
struct ErasureJSON: Encodable {
    let erased: Int
    let deliveries: Int
    let files: Int
}
