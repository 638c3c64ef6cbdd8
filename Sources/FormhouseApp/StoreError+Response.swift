import FormStore
import HTTPServer
import Logging

/// A store error that no handler answered itself. Any read or write can meet an unusable database,
/// and the answer the README promises for that is 503 with `Retry-After`, not a 500; the store's own
/// detail (SQLite's message, file paths) goes to the log only.
extension StoreError: HTTPResponseError {
    private static let logger = Logger(label: "formhouse.api")

    public var response: Response {
        switch self {
        case .unavailable, .leaseLost:
            Self.logger.error("storage unavailable", metadata: ["error": "\(self)"])
            return APIProblem.unavailable("Storage cannot be used right now; nothing was changed. Retry the request.").response
        case .outcomeUnknown:
            Self.logger.error("storage failed while committing", metadata: ["error": "\(self)"])
            return APIProblem.unavailable(
                "The disk failed while storing the change; it may have been applied. Read it back before retrying.").response
        case .notFound:
            return APIProblem.notFound("The requested resource does not exist.").response
        case .conflict, .limitReached:
            return APIProblem(status: 409, slug: "conflict", title: "Conflict",
                              detail: "The request conflicts with what is stored; read it again and retry.").response
        case .invalidCursor:
            return APIProblem.invalidCursor.response
        case .preconditionFailed(let version):
            var problem = APIProblem(
                status: 412, slug: "precondition-failed", title: "Precondition Failed",
                detail: version.map { "The form's current version is \($0) (ETag \"\($0)\"); read it again and retry." }
                    ?? "The form does not exist (or was deleted).")
            if let version { problem.headers.append(("ETag", "\"\(version)\"")) }
            return problem.response
        }
    }
}
