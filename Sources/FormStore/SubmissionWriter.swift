import Foundation
import GRDB

/// Writes one group of submissions, their deliveries and their forms' counters, in one transaction.
enum SubmissionWriter {
    /// Runs the group's transaction; each submission in its own savepoint so that a row that clashes
    /// (a repeated idempotency key, an unknown form version), names an upload it cannot have or a draft
    /// that is gone or submitted already fails alone. Any other error, and a failed
    /// COMMIT, fails the whole group: the caller then answers every waiter "unavailable".
    ///
    /// Returns one result per submission and the number of deliveries queued.
    static func write(
        _ group: [NewSubmission], in db: Database, idempotencyWindow: TimeInterval,
        beforeCommit: (@Sendable () throws -> Void)?
    ) throws -> ([Result<InsertOutcome, StoreError>], Int) {
        var results: [Result<InsertOutcome, StoreError>] = []
        results.reserveCapacity(group.count)
        var deliveriesCreated = 0
        try db.inTransaction(.immediate) {
            // Rows stored per form and day, added to the form's count and its day's counters once per group.
            var stored = SubmissionTally()
            let now = Date().storedMilliseconds
            var activeEndpoints: [String: [String]] = [:]
            // Looked up once per group: the statement cache hashes the SQL text on every lookup. A failed
            // row does not spoil it, as `SQLiteBinding` resets it before each use.
            var binding = SQLiteBinding(try db.cachedStatement(sql: insertSQL), in: db)
            for submission in group {
                let result = try insert(
                    submission, with: &binding, in: db, now: now, idempotencyWindow: idempotencyWindow,
                    activeEndpoints: &activeEndpoints)
                if case .success(.inserted) = result {
                    let formID = submission.record.formID
                    deliveriesCreated += activeEndpoints[formID]?.count ?? 0
                    stored.add(
                        formID: formID, receivedAtMilliseconds: submission.record.receivedAt.storedMilliseconds,
                        fromDraft: submission.draftID != nil)
                }
                results.append(result)
            }
            for (formID, count) in stored.perForm {
                try db.cachedStatement(sql: "UPDATE forms SET submission_count = submission_count + ? WHERE id = ?")
                    .execute(arguments: [count, formID])
            }
            for entry in stored.entries {
                try FormStatsQueries.addSubmissions(
                    entry.submissions, draftsSubmitted: entry.draftsSubmitted, formID: entry.formDay.formID,
                    day: entry.formDay.day, in: db)
            }
            try beforeCommit?()
            return .commit
        }
        return (results, deliveriesCreated)
    }

    private static func insert(
        _ submission: NewSubmission, with binding: inout SQLiteBinding, in db: Database, now: Int64,
        idempotencyWindow: TimeInterval, activeEndpoints: inout [String: [String]]
    ) throws -> Result<InsertOutcome, StoreError> {
        // Fields are read through `submission.record` in place: a local copy of the record would
        // retain each of its fields once more per row.
        let receivedAt = submission.record.receivedAt.storedMilliseconds
        do {
            let endpoints = try endpointIDs(formID: submission.record.formID, in: db, cache: &activeEndpoints)
            if endpoints.isEmpty && submission.uploadIDs.isEmpty && submission.draftID == nil {
                // One statement: a failing INSERT backs out by itself and leaves the transaction open,
                // so no savepoint is needed (it would cost two more statements per row).
                try insertRow(submission.record, receivedAt: receivedAt, with: &binding)
            } else {
                try inSavepoint(db) {
                    // The row first: a replayed key fails here, before its draft and uploads (taken by
                    // the first submission) are looked at; then the draft, so that submitting it again is
                    // answered as such whatever its uploads.
                    try insertRow(submission.record, receivedAt: receivedAt, with: &binding)
                    if let draftID = submission.draftID {
                        try DraftQueries.close(draftID, by: submission.record, in: db)
                    }
                    try UploadQueries.bind(submission.uploadIDs, to: submission.record, in: db)
                    let payload = Data(submission.webhookPayload)
                    let statement = try db.cachedStatement(sql: """
                        INSERT INTO deliveries (id, endpoint_id, submission_id, form_id, payload, status, attempts,
                            next_attempt_at, created_at, updated_at)
                        VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)
                        """)
                    for endpoint in endpoints {
                        try statement.execute(arguments: [
                            RandomID.timeOrdered(prefix: "msg_"), endpoint, submission.record.id, submission.record.formID, payload,
                            now, now, now,
                        ])
                    }
                }
            }
            return .success(.inserted)
        } catch let unavailable as UploadQueries.Unavailable {
            return .success(.uploadsUnavailable(unavailable.ids))
        } catch let submitted as DraftQueries.Submitted {
            return .success(.draftSubmitted(existing: submitted.existing))
        } catch let missing as DraftQueries.Missing {
            return .failure(.notFound("draft \(missing.draftID)"))
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            // The failed INSERT (or the savepoint) is backed out; the rest of the group goes on.
            if let key = submission.record.idempotencyKey,
               let existing = try SubmissionQueries.submission(formID: submission.record.formID, idempotencyKey: key, in: db) {
                guard existing.receivedAt < submission.record.receivedAt.addingTimeInterval(-idempotencyWindow) else {
                    return .success(.duplicate(existing: existing))
                }
                // The key's window is over: the old submission gives the key up and the new one is stored.
                try db.execute(sql: "UPDATE submissions SET idempotency_key = NULL WHERE id = ?", arguments: [existing.id])
                return try insert(
                    submission, with: &binding, in: db, now: now, idempotencyWindow: idempotencyWindow,
                    activeEndpoints: &activeEndpoints)
            }
            if error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
                return .failure(.notFound("form \(submission.record.formID) has no version \(submission.record.formVersion)"))
            }
            return .failure(.conflict("submission \(submission.record.id) clashes with a stored row: \(error.message ?? "")"))
        }
    }

    private static let insertSQL = """
        INSERT INTO submissions (id, form_id, form_version, received_at, "values", raw_body,
            idempotency_key, body_hash, client_address)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// Bound by hand through ``SQLiteBinding`` rather than inserted as a `PersistableRecord`: this runs
    /// once per accepted submission, and a record insert would box and copy every field on the way.
    private static func insertRow(_ submission: SubmissionRecord, receivedAt: Int64, with binding: inout SQLiteBinding) throws {
        binding.begin()
        binding.bind(submission.id)
        binding.bind(submission.formID)
        binding.bind(Int64(submission.formVersion))
        binding.bind(receivedAt)
        binding.bind(submission.values)
        binding.bind(blob: submission.rawBody)
        binding.bind(submission.idempotencyKey)
        binding.bind(submission.bodyHash)
        binding.bind(submission.clientAddress)
        try binding.run()
    }

    /// Runs `body` in a savepoint with cached statements (GRDB's `inSavepoint` prepares its three
    /// statements on every call, which shows in a group of hundreds).
    private static func inSavepoint(_ db: Database, _ body: () throws -> Void) throws {
        try db.cachedStatement(sql: "SAVEPOINT submission").execute()
        do {
            try body()
            try db.cachedStatement(sql: "RELEASE submission").execute()
        } catch {
            try db.cachedStatement(sql: "ROLLBACK TO submission").execute()
            try db.cachedStatement(sql: "RELEASE submission").execute()
            throw error
        }
    }

    /// The form's endpoints that are neither deleted nor disabled, read once per group and form.
    private static func endpointIDs(formID: String, in db: Database, cache: inout [String: [String]]) throws -> [String] {
        if let cached = cache[formID] { return cached }
        let ids = try String.fetchAll(db.cachedStatement(sql: """
            SELECT id FROM webhook_endpoints
            WHERE form_id = ? AND deleted_at IS NULL AND disabled_at IS NULL
            ORDER BY created_at, id
            """), arguments: [formID])
        cache[formID] = ids
        return ids
    }
}
