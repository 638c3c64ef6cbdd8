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

    /// Pages are newest first (received time, then id, descending); `limit` is clamped to 1...1000,
    /// and a page ends early, with a cursor, once its values reach `pageValueBytes`: a page is
    /// answered whole, so large submissions would otherwise hold hundreds of megabytes at once.
    public func submissions(formID: String, after cursor: SubmissionCursor?, limit: Int) async throws -> SubmissionPage {
        let limit = min(max(limit, 1), 1000)
        let (items, more) = try await read { db in
            try SubmissionQueries.rows(
                formID: formID, past: cursor, order: .newestFirst, limit: limit, maxBytes: Self.pageValueBytes, in: db)
        }
        guard more, let last = items.last else { return SubmissionPage(items: items, nextCursor: nil) }
        return SubmissionPage(
            items: items,
            nextCursor: SubmissionCursor(receivedAtMilliseconds: last.receivedAt.storedMilliseconds, id: last.id))
    }

    /// The values a page of submissions holds before it ends early (at least one row).
    public static let pageValueBytes = 4 * 1024 * 1024

    /// Batches are oldest first; each is read in its own short read transaction.
    public func forEachSubmission(
        formID: String, batchSize: Int, maxBatchBytes: Int, _ body: @Sendable ([SubmissionRecord]) async throws -> Void
    ) async throws {
        // Bounded so that asking the query for one row more cannot overflow.
        let batchSize = min(max(batchSize, 1), 100_000)
        var cursor: SubmissionCursor?
        while true {
            let after = cursor
            let (batch, more) = try await read { db in
                try SubmissionQueries.rows(
                    formID: formID, past: after, order: .oldestFirst, limit: batchSize, maxBytes: maxBatchBytes, in: db)
            }
            if batch.isEmpty { return }
            try await body(batch)
            if !more { return }
            let last = batch[batch.count - 1]
            cursor = SubmissionCursor(receivedAtMilliseconds: last.receivedAt.storedMilliseconds, id: last.id)
        }
    }
}
