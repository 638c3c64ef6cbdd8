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
