import Foundation
import GRDB

extension SQLiteFormStore {
    /// Queues the submission for the next group transaction and returns once that group is durably
    /// committed (or has failed, with ``StoreError/unavailable(_:)``).
    public func insertSubmission(_ submission: consuming NewSubmission) async throws -> InsertOutcome {
        // Refused before it joins a group: a latched store would otherwise log a failed group per request.
        try damage.checkWritable()
        return try await submissionCommitter.submit(submission)
    }

    public func submission(id: String) async throws -> SubmissionRecord? {
        try await read { db in try SubmissionQueries.submission(id: id, in: db) }
    }

    public func submission(formID: String, idempotencyKey: String) async throws -> SubmissionRecord? {
        // The writer takes the key from a row older than the window when it is reused; a lookup
        // that found such a row would replay (or refuse) what the insert would have replaced.
        let oldest = Date().addingTimeInterval(-configuration.idempotencyWindow)
        return try await read { db in
            try SubmissionQueries.submission(formID: formID, idempotencyKey: idempotencyKey, in: db)
        }.flatMap { $0.receivedAt >= oldest ? $0 : nil }
    }

    public func submissions(
        formID: String, past cursor: SubmissionCursor?, order: SubmissionOrder, limit: Int, maxValueBytes: Int
    ) async throws -> (records: [SubmissionRecord], more: Bool) {
        try await read { db in
            try SubmissionQueries.rows(formID: formID, past: cursor, order: order, limit: limit, maxBytes: maxValueBytes, in: db)
        }
    }
}
