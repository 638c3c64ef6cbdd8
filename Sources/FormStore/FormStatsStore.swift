import Foundation

/// A form's counters per day, kept in the transactions that change what they count, so they equal what
/// the rows say after a restart or a crash, and read without scanning rows:
///
/// - `submissions`: in ``SubmissionStore/insertSubmission(_:)``'s transaction, on the day of `receivedAt`;
/// - `draftsSubmitted`: there too, when the submission closes a draft;
/// - `draftsStarted`: in ``DraftStore/createDraft(_:uploadIDs:maxPerClientPerHour:)``'s transaction, on the day of `createdAt`;
/// - `rejected` and the failures by input: by ``recordRejection(_:)``.
public protocol FormStatsStore: Sendable {
    /// Counts a rejected submission and its failures, durably, before it returns: rejections are grouped
    /// into shared transactions as submissions are, so a flood of bad requests does not cost one
    /// transaction each. Rejections of unknown forms are not counted.
    func recordRejection(_ rejection: Rejection) async throws

    /// A form's counters from day `from` through day `through` (days since 1970-01-01, UTC), both included.
    func stats(formID: String, from: Int, through: Int) async throws -> FormStats
}
