/// Submissions: stored durably, read one by one, by page and for export.
public protocol SubmissionStore: Sendable {
    /// Stores a submission and one pending delivery per active webhook endpoint of its form, durably,
    /// and binds the uploads it names to it in the same transaction. When one of them cannot be bound
    /// (see ``InsertOutcome/uploadsUnavailable(_:)``) nothing of the submission is stored, and the
    /// others of its group are stored all the same. A submission from a draft closes the draft in the same
    /// transaction, once (see ``InsertOutcome/draftSubmitted(existing:)``; a draft that is gone fails it
    /// with ``StoreError/notFound(_:)``), and only at ``NewSubmission/draftRevision`` when that is set:
    /// a draft open at another revision fails it with ``StoreError/conflict(_:)`` ("draft <id> changed
    /// since it was read"), nothing of it stored, the draft left open. The draft's unbound uploads the
    /// submission does not bind expire at its received time. A replay of a stored idempotency key answers
    /// ``InsertOutcome/duplicate(existing:)`` without looking at its uploads.
    ///
    /// Returns only after the transaction that holds it is committed to disk. Throws
    /// ``StoreError/unavailable(_:)`` when that transaction fails: nothing of the submission is stored
    /// then. The submission is consumed: it travels to the writer without a copy of its fields.
    func insertSubmission(_ submission: consuming NewSubmission) async throws -> InsertOutcome

    /// One submission by id.
    func submission(id: String) async throws -> SubmissionRecord?

    /// The submission stored under an idempotency key of a form within the store's idempotency window
    /// (24 hours by default); an older one has given the key up, and nil comes back.
    func submission(formID: String, idempotencyKey: String) async throws -> SubmissionRecord?

    /// A form's submissions in `order` (by received time, then id), strictly past `cursor` when given,
    /// without their raw bodies (`rawBody` is empty): up to `limit` of them, ending early once their
    /// values reach `maxValueBytes` (always at least one). `more` tells whether rows follow. Each call
    /// reads in one short read transaction.
    func submissions(
        formID: String, past cursor: SubmissionCursor?, order: SubmissionOrder, limit: Int, maxValueBytes: Int
    ) async throws -> (records: [SubmissionRecord], more: Bool)
}

/// The order a form's submissions are read in, by received time then id.
public enum SubmissionOrder: Sendable {
    /// Newest first, from before the cursor: pages.
    case newestFirst
    /// Oldest first, from after the cursor: exports.
    case oldestFirst
}

extension SubmissionStore {
    /// The values a page of submissions holds before it ends early (at least one row): a page is
    /// answered whole, so large submissions would otherwise hold hundreds of megabytes at once.
    public static var pageValueBytes: Int { 4 * 1024 * 1024 }

    /// A page of a form's submissions, newest first; pass the page's `nextCursor` to get the next one.
    /// `limit` is clamped to 1...1000, and a page ends early, with a cursor, once its values reach
    /// ``pageValueBytes``. Rows come without their raw body, as a page does not show it.
    public func submissions(formID: String, after cursor: SubmissionCursor?, limit: Int) async throws -> SubmissionPage {
        let (items, more) = try await submissions(
            formID: formID, past: cursor, order: .newestFirst, limit: min(max(limit, 1), 1000), maxValueBytes: Self.pageValueBytes)
        guard more, let last = items.last else { return SubmissionPage(items: items, nextCursor: nil) }
        return SubmissionPage(items: items, nextCursor: SubmissionCursor(last))
    }

    /// Every submission of a form, oldest first, in batches of at most `batchSize` rows and, past the
    /// first row, about `maxBatchBytes` of values, so a batch of large submissions stays small in
    /// memory. Rows come without their raw body (`rawBody` is empty): exports never need it, and it is
    /// as large as the values. No read transaction is held while `body` runs, so a slow consumer does
    /// not hold the database.
    public func forEachSubmission(
        formID: String, batchSize: Int, maxBatchBytes: Int, _ body: @Sendable ([SubmissionRecord]) async throws -> Void
    ) async throws {
        // Bounded so that asking for one row more cannot overflow.
        let batchSize = min(max(batchSize, 1), 100_000)
        var cursor: SubmissionCursor?
        while true {
            let (batch, more) = try await submissions(
                formID: formID, past: cursor, order: .oldestFirst, limit: batchSize, maxValueBytes: maxBatchBytes)
            guard let last = batch.last else { return }
            try await body(batch)
            if !more { return }
            cursor = SubmissionCursor(last)
        }
    }
}
