import FormEngine
import FormStore

/// Why ``SubmissionService`` did not accept or validate a submission. Domain facts only: how each
/// is answered over HTTP is decided in `ProblemMapping.swift`.
enum SubmissionFailure: Error, Sendable {
    /// No live form has this id.
    case formNotFound(formID: String)
    /// The body is not a submission: not JSON, too deep or large, or neither of the two shapes.
    case unreadable(SubmissionError)
    /// The body names a version the form does not have.
    case unknownFormVersion(formID: String, requested: Int, current: Int)
    /// The values broke the form's rules; every error, in form order, and the languages their
    /// messages are in (``ValidationResult/messageLanguages``; empty for messages in English only).
    case invalid([FieldError], languages: [String] = [])
    /// The `Idempotency-Key` is not 1–255 visible ASCII characters, or was sent more than once.
    case invalidIdempotencyKey(reason: String)
    /// A request with the same key is still being stored.
    case idempotencyKeyInFlight
    /// The key was used before with another body.
    case idempotencyKeyReused
    /// The store failed before committing: nothing was kept.
    case notStored
    /// The store failed while committing: the submission may have been kept. `keyed` tells whether
    /// the client sent an `Idempotency-Key`, which is what tells a retry from a second submission.
    case outcomeUnknown(keyed: Bool)
}
