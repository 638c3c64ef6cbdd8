import FileStorage
import Foundation
import FormEngine
import FormStore
import HTTPServer
import Logging

// The one place where the domain's errors become HTTP answers: the submission service, the form
// catalog, the store and the rate limiter speak their own errors, and these extensions give each
// its problem.

/// A domain error with its problem; answered with it, unless it also logs (as `StoreError` does).
protocol ProblemConvertible: HTTPResponseError {
    var problem: APIProblem { get }
}

extension ProblemConvertible {
    func response(context: CoreRequestContext) -> Response { problem.response }
}

extension SubmissionFailure: ProblemConvertible {
    var problem: APIProblem {
        switch self {
        case .formNotFound(let formID):
            return .notFound("There is no form '\(formID)'.")
        case .unreadable(let error):
            var problem = APIProblem(Self.problemType(of: error), error.message)
            // Where the JSON broke, for a client to point at: the detail says it, `offset` carries it.
            if error.code == .malformedJSON, let offset = error.offset {
                problem.detail = (problem.detail.hasSuffix(".") ? String(problem.detail.dropLast()) : problem.detail) + " at byte \(offset)."
                problem.extra.offset = offset
            }
            return problem
        case .unknownFormVersion(let formID, let requested, let current):
            return APIProblem(.unknownFormVersion, "Form '\(formID)' has no version \(requested); the current version is \(current).",
                              extra: ProblemExtra(currentVersion: current))
        case .invalid(let errors, let languages):
            var problem = APIProblem.validationFailed(errors)
            problem.headers = MessageLanguage.headers(languages)
            return problem
        case .invalidIdempotencyKey(let reason):
            return APIProblem(.invalidIdempotencyKey, reason)
        case .idempotencyKeyInFlight:
            return APIProblem(.idempotencyInFlight, "A request with this Idempotency-Key is still being processed; retry shortly.",
                              headers: [("Retry-After", "1")])
        case .idempotencyKeyReused:
            return APIProblem(.idempotencyKeyReused,
                              "This Idempotency-Key was already used with a different body; use a new key for a new submission.")
        case .notStored:
            return .unavailable("The submission could not be stored; nothing was kept. Retry the request.")
        case .outcomeUnknown(let keyed):
            return .unavailable(keyed
                ? "Storage failed while committing the submission; it may have been stored. Retry with the same Idempotency-Key to learn which."
                : "Storage failed while committing the submission; it may have been stored. Sending it again may store it twice (an Idempotency-Key would prevent that).")
        }
    }

    private static func problemType(of error: SubmissionError) -> ProblemType {
        switch error.code {
        case .malformedJSON: .malformedSubmission
        case .tooLarge: .submissionTooLarge
        case .invalidShape: .invalidSubmissionShape
        }
    }
}

extension CatalogFailure: ProblemConvertible {
    var problem: APIProblem {
        switch self {
        case .tooManyCompiles: .unavailable("Too many old form versions are being prepared at once; retry shortly.")
        case .savedButUnreadable: .unavailable("The form was saved but could not be read back; retry the request.")
        }
    }
}

extension RateLimited: ProblemConvertible {
    private var traffic: String {
        switch what {
        case .submissions: "submissions (or asked for old form versions)"
        case .validations: "validations"
        }
    }

    var problem: APIProblem {
        APIProblem(.rateLimited,
                   "This client sent \(traffic) faster than \(perSecond) per second (large bodies count more); retry after \(seconds) s.",
                   headers: [("Retry-After", String(seconds))])
    }
}

/// A store error that no handler answered itself. Any read or write can meet an unusable database,
/// and the answer for that is 503 with `Retry-After`, not a 500; the store's own detail (SQLite's
/// message, file paths) goes to the log only.
extension StoreError: ProblemConvertible {
    public func response(context: CoreRequestContext) -> Response {
        switch self {
        case .unavailable, .leaseLost:
            context.logger.error("storage unavailable", metadata: ["error": "\(self)"])
        case .outcomeUnknown:
            context.logger.error("storage failed while committing", metadata: ["error": "\(self)"])
        case .notFound, .conflict, .limitReached, .invalidCursor, .preconditionFailed:
            break
        }
        return problem.response
    }

    var problem: APIProblem {
        switch self {
        case .unavailable, .leaseLost:
            return .unavailable("Storage cannot be used right now; nothing was changed. Retry the request.")
        case .outcomeUnknown:
            return .unavailable("Storage failed while committing the change; it may have been applied. Read it back before retrying.")
        case .notFound:
            return .notFound("The requested resource does not exist.")
        case .conflict, .limitReached:
            return APIProblem(.conflict, "The request conflicts with what is stored; read it again and retry.")
        case .invalidCursor:
            return .invalidCursor
        case .preconditionFailed(let version):
            var problem = APIProblem(.preconditionFailed, version.map { "The form's current version is \($0) (ETag \"\($0)\"); read it again and retry." }
                    ?? "The form does not exist (or was deleted).")
            if let version { problem.headers.append(("ETag", "\"\(version)\"")) }
            return problem
        }
    }
}

/// A file storage error no handler answered itself: 507 for a full disk, otherwise 503 with
/// `Retry-After`; the storage's own detail (paths, S3 error codes) goes to the log only.
extension BlobStorageError: ProblemConvertible {
    public func response(context: CoreRequestContext) -> Response {
        context.logger.error("file storage unavailable", metadata: ["error": "\(self)"])
        return problem.response
    }

    var problem: APIProblem {
        if case .fileSystem(_, _, let code) = self, code == ENOSPC || code == EDQUOT { return .diskFull }
        return .unavailable("The file storage cannot be used right now; try again shortly.", retryAfter: 5)
    }
}

/// A staged tus upload's file failed: 507 for a full disk, otherwise 503; the path goes to the log only.
extension StagedFileError: ProblemConvertible {
    public func response(context: CoreRequestContext) -> Response {
        context.logger.error("staged upload failed", metadata: ["error": "\(self)"])
        return problem.response
    }

    var problem: APIProblem {
        if case .failed(_, let code) = self, code == ENOSPC || code == EDQUOT { return .diskFull }
        return .unavailable("The upload could not be staged; try again shortly.", retryAfter: 5)
    }
}

extension APIProblem {
    /// The disk that takes uploads is full.
    static let diskFull = APIProblem(
        .insufficientStorage, "The server is out of disk space for uploads; try again later.", headers: [("Retry-After", "60")])
}
