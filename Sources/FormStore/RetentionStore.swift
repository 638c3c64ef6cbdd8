import Foundation

/// Forgetting old submissions: a form's retention period, applied in small batches.
public protocol RetentionStore: Sendable {
    /// Deletes up to `limit` of a form's submissions received before `date`, oldest first, in one
    /// transaction: with their raw bodies, their deliveries and those deliveries' attempts, and the
    /// drafts they closed. Their uploads are unbound and set to expire at once, so the upload sweeper
    /// deletes them and their bytes. The form's submission count goes down with them; its daily
    /// statistics, which count what happened, do not.
    func deleteSubmissions(formID: String, receivedBefore date: Date, limit: Int) async throws -> DeletedSubmissions

    /// The forms, deleted ones included, that hold submissions, with the version that was current
    /// last (whose `retentionDays` applies), ordered by id.
    func formsHoldingSubmissions() async throws -> [(id: String, currentVersion: Int)]

    /// Erases those of the given submissions that belong to the form, as retention deletes them (raw
    /// bodies, deliveries sent or not, attempts, closed drafts; uploads let go at once), in one
    /// transaction that also records `audit` when anything was erased. Ids of other forms or of no
    /// submission are skipped.
    func eraseSubmissions(ids: [String], formID: String, audit: AuditNote?) async throws -> DeletedSubmissions

    /// Removes what deleted rows leave behind, where the store can: SQLite overwrites deleted rows
    /// with zeros (`secure_delete`) but its write-ahead log keeps earlier copies of their pages until
    /// it is checkpointed, which this does. A PostgreSQL server keeps dead rows until VACUUM reuses
    /// their space, which no client can force to be immediate; there this does nothing.
    func scrubDeletedData() async throws
}

/// What one batch of ``RetentionStore/deleteSubmissions(formID:receivedBefore:limit:)`` removed.
public struct DeletedSubmissions: Sendable, Equatable {
    public var submissions: Int
    public var deliveries: Int
    public var attempts: Int
    /// Uploads let go, for the upload sweeper to delete.
    public var files: Int

    public init(submissions: Int = 0, deliveries: Int = 0, attempts: Int = 0, files: Int = 0) {
        self.submissions = submissions
        self.deliveries = deliveries
        self.attempts = attempts
        self.files = files
    }

    /// Adds what another batch removed.
    public static func += (total: inout DeletedSubmissions, batch: DeletedSubmissions) {
        total.submissions += batch.submissions
        total.deliveries += batch.deliveries
        total.attempts += batch.attempts
        total.files += batch.files
    }
}
