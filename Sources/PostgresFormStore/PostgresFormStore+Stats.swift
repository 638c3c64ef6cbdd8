import FormStore

extension PostgresFormStore: FormStatsStore {
    /// Queues the rejection for the next group transaction of rejections and returns once that group
    /// is committed (durably, as submissions are), or has failed. At most
    /// ``FormStore/RejectionTally/maxFailuresPerRejection`` distinct failures of one rejection are counted.
    public func recordRejection(_ rejection: Rejection) async throws {
        try checkReady()
        try await rejectionCommitter.submit(rejection)
    }

    public func stats(formID: String, from: Int, through: Int) async throws -> FormStats {
        try await transaction { connection in
            try await PostgresFormStatsQueries.stats(
                formID: formID, from: from, through: through, on: connection, logger: self.logger)
        }
    }
}
