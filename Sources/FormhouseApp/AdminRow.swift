import FormStore
import HTTPServer

/// The row an admin route names (``AdminNeed/Target``), as ``AdminRoutes`` read it to learn the row's
/// form; nil inside when no such row exists. Kept on the caller so that the handler answers from the
/// row the token was checked against, without reading it a second time.
enum AdminRow: Sendable, Equatable {
    case submission(id: String, SubmissionRecord?)
    case endpoint(id: String, EndpointRecord?)
    case delivery(id: String, DeliveryRecord?)
    case upload(id: String, UploadRecord?)

    /// The row `target` names in `request`; nil when the target is not a row.
    static func read(_ target: AdminNeed.Target, _ request: Request, _ store: any FormStore) async throws -> AdminRow? {
        switch target {
        case .none, .everyForm, .body, .form: return nil
        case .submission(let name):
            let id = try request.parameters.require(name)
            return .submission(id: id, try await store.submission(id: id))
        case .webhook(let name):
            let id = try request.parameters.require(name)
            return .endpoint(id: id, try await store.endpoint(id: id))
        case .delivery(let name):
            let id = try request.parameters.require(name)
            return .delivery(id: id, try await store.delivery(id: id))
        case .file(let name):
            let id = try request.parameters.require(name)
            return .upload(id: id, try await store.upload(id: id))
        }
    }

    /// The row's form; nil when the row does not exist.
    var formID: String? {
        switch self {
        case .submission(_, let record): record?.formID
        case .endpoint(_, let record): record?.formID
        case .delivery(_, let record): record?.formID
        case .upload(_, let record): record?.formID
        }
    }
}

/// How handlers get the row their route names: the one the guard read when it read it (for a token
/// limited to some forms), else from `store` now (a token for every form skips the guard's read).
/// No handler reads an endpoint: the webhook routes' writes answer whether it exists.
extension AdminCaller {
    func submission(_ id: String, from store: any FormStore) async throws -> SubmissionRecord? {
        if case .submission(id, let record) = row { return record }
        return try await store.submission(id: id)
    }

    func delivery(_ id: String, from store: any FormStore) async throws -> DeliveryRecord? {
        if case .delivery(id, let record) = row { return record }
        return try await store.delivery(id: id)
    }

    func upload(_ id: String, from store: any FormStore) async throws -> UploadRecord? {
        if case .upload(id, let record) = row { return record }
        return try await store.upload(id: id)
    }
}
