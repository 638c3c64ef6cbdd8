import FormStore
import Foundation
import PostgresNIO

extension PostgresFormStore: SubmissionStore {
    /// Queues the submission for the next group transaction and returns once that group is committed
    /// (with `synchronous_commit` on, so durably), or has failed: ``FormStore/StoreError/unavailable(_:)``
    /// when nothing of it is stored, ``FormStore/StoreError/outcomeUnknown(_:)`` when the connection
    /// was lost during COMMIT.
    public func insertSubmission(_ submission: consuming NewSubmission) async throws -> InsertOutcome {
        // Refused before it joins a group: a group would wait for a connection the pool cannot make.
        try checkReady()
        return try await submissionCommitter.submit(submission)
    }

    public func submission(id: String) async throws -> SubmissionRecord? {
        try await read { connection in
            try await connection.query(
                "SELECT \(unescaped: PostgresSubmissionQueries.columns) FROM submissions WHERE id = \(id)", logger: self.logger
            ).submissionRecords().first
        }
    }

    public func submission(formID: String, idempotencyKey: String) async throws -> SubmissionRecord? {
        // The writer takes the key from a row older than the window when it is reused; a lookup that
        // found such a row would replay (or refuse) what the insert would have replaced.
        let oldest = Date().addingTimeInterval(-configuration.idempotencyWindow)
        return try await read { connection in
            try await connection.query("""
                SELECT \(unescaped: PostgresSubmissionQueries.columns) FROM submissions
                WHERE form_id = \(formID) AND idempotency_key = \(idempotencyKey)
                """, logger: self.logger).submissionRecords().first
        }.flatMap { $0.receivedAt >= oldest ? $0 : nil }
    }

    public func submissions(
        formID: String, past cursor: SubmissionCursor?, order: SubmissionOrder, limit: Int, maxValueBytes: Int
    ) async throws -> (records: [SubmissionRecord], more: Bool) {
        try await read { connection in
            try await PostgresSubmissionQueries.rows(
                formID: formID, past: cursor, order: order, limit: limit, maxBytes: maxValueBytes, on: connection,
                logger: self.logger)
        }
    }

    /// Group commit counters since the store was opened.
    public var commitStatistics: CommitStatistics {
        submissionCommitter.statistics
    }
}
