import Foundation
import GRDB

extension SQLiteFormStore {
    public func deleteSubmissions(formID: String, receivedBefore date: Date, limit: Int) async throws -> DeletedSubmissions {
        try await write { db in
            let ids = try String.fetchAll(db.cachedStatement(sql: """
                SELECT id FROM submissions WHERE form_id = ? AND received_at < ? ORDER BY received_at, id LIMIT ?
                """), arguments: [formID, date.storedMilliseconds, Int64(clamping: max(limit, 0))])
            return try SubmissionDeletion.delete(ids, formID: formID, now: Date(), in: db)
        }
    }

    public func formsHoldingSubmissions() async throws -> [(id: String, currentVersion: Int)] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT id, current_version FROM forms WHERE submission_count > 0 ORDER BY id")
                .map { (id: $0["id"], currentVersion: $0["current_version"]) }
        }
    }

    public func eraseSubmissions(ids: [String], formID: String, audit: AuditNote?) async throws -> DeletedSubmissions {
        guard !ids.isEmpty else { return DeletedSubmissions() }
        return try await write { db in
            let found = try String.fetchAll(db, sql: """
                SELECT id FROM submissions WHERE form_id = ? AND id IN (\(databaseQuestionMarks(count: ids.count)))
                """, arguments: StatementArguments([formID] + ids))
            let deleted = try SubmissionDeletion.delete(found, formID: formID, now: Date(), in: db)
            if deleted.submissions > 0 { try AuditLog.append(audit, in: db) }
            return deleted
        }
    }

    /// Copies the WAL into the database file and empties it. The log holds pages as they were before
    /// a delete, deleted values included, until it is checkpointed and truncated; with `secure_delete`
    /// on, the database file keeps no copy of them once they are checkpointed.
    public func scrubDeletedData() async throws {
        let busy = try await pool.writeWithoutTransaction { db in
            try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")?[0] as Int? ?? 1
        }
        if busy != 0 { throw StoreError.unavailable("readers kept the WAL from being emptied; the next checkpoint empties it") }
    }
}

/// Deletes submissions by id with everything that refers to them, in the caller's transaction.
enum SubmissionDeletion {
    static func delete(_ ids: [String], formID: String, now: Date, in db: Database) throws -> DeletedSubmissions {
        guard !ids.isEmpty else { return DeletedSubmissions() }
        let marks = databaseQuestionMarks(count: ids.count)
        let arguments = StatementArguments(ids)
        try db.execute(sql: """
            DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE submission_id IN (\(marks)))
            """, arguments: arguments)
        let attempts = db.changesCount
        try db.execute(sql: "DELETE FROM deliveries WHERE submission_id IN (\(marks))", arguments: arguments)
        let deliveries = db.changesCount
        // Unbound and already expired: the upload sweeper removes the record and the bytes.
        try db.execute(sql: """
            UPDATE uploads SET submission_id = NULL, draft_id = NULL, expires_at = ? WHERE submission_id IN (\(marks))
            """, arguments: [now.storedMilliseconds - 1] + arguments)
        let files = db.changesCount
        try db.execute(sql: "DELETE FROM drafts WHERE submission_id IN (\(marks))", arguments: arguments)
        try db.execute(sql: "DELETE FROM submissions WHERE id IN (\(marks))", arguments: arguments)
        let submissions = db.changesCount
        try db.execute(sql: "UPDATE forms SET submission_count = MAX(0, submission_count - ?) WHERE id = ?",
                       arguments: [submissions, formID])
        return DeletedSubmissions(submissions: submissions, deliveries: deliveries, attempts: attempts, files: files)
    }
}
