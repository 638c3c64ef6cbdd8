import Foundation

extension SQLiteFormStore {
    /// Queues the rejection for the next group transaction of rejections and returns once that group
    /// is durably committed (or has failed, with ``StoreError/unavailable(_:)``). At most
    /// ``RejectionTally/maxFailuresPerRejection`` distinct failures of one rejection are counted.
    public func recordRejection(_ rejection: Rejection) async throws {
        try damage.checkWritable()
        try await rejectionCommitter.submit(rejection)
    }

    public func stats(formID: String, from: Int, through: Int) async throws -> FormStats {
        try await read { db in try FormStatsQueries.stats(formID: formID, from: from, through: through, in: db) }
    }
}
