import Foundation
import GRDB

/// The draft statements shared by the store's methods and the group writer.
enum DraftQueries {
    /// The columns ``DraftRecord/init(row:)`` reads, in its order.
    static let columns = """
        id, form_id, form_version, token_hash, revision, "values", client_address, created_at, updated_at, expires_at,
            submission_id
        """

    /// Why a submission cannot close its draft: the draft was submitted already, as `existing`.
    struct Submitted: Error {
        var existing: SubmissionRecord
    }

    /// Why a submission cannot close its draft: there is no such draft.
    struct Missing: Error {
        var draftID: String
    }

    static func draft(id: String, in db: Database) throws -> DraftRecord? {
        try DraftRecord.fetchOne(db.cachedStatement(sql: "SELECT \(columns) FROM drafts WHERE id = ?"), arguments: [id])
    }

    /// Ties the unbound uploads of the draft's form among `uploadIDs` to the draft, and keeps each at
    /// least until `expiresAt`.
    static func tieUploads(_ uploadIDs: [String], to draftID: String, formID: String, expiresAt: Date, in db: Database) throws {
        if uploadIDs.isEmpty { return }
        try db.execute(sql: """
            UPDATE uploads SET draft_id = ?, expires_at = MAX(expires_at, ?)
            WHERE id IN (\(databaseQuestionMarks(count: uploadIDs.count))) AND submission_id IS NULL AND form_id = ?
            """, arguments: [draftID, expiresAt.storedMilliseconds] + StatementArguments(uploadIDs) + [formID])
    }

    /// Lets go of the unbound uploads of deleted drafts: they expire now, for the upload sweeper, and
    /// no longer name the drafts. Uploads bound to a submission keep theirs.
    static func releaseUploads(ofDrafts draftIDs: [String], in db: Database) throws {
        if draftIDs.isEmpty { return }
        try db.execute(sql: """
            UPDATE uploads SET expires_at = MIN(expires_at, ?), draft_id = NULL
            WHERE draft_id IN (\(databaseQuestionMarks(count: draftIDs.count))) AND submission_id IS NULL
            """, arguments: [Date().storedMilliseconds] + StatementArguments(draftIDs))
    }

    /// Closes the draft `submission` is submitted from, in its savepoint; throws ``Submitted`` when it
    /// was submitted already and ``Missing`` when there is none, so the caller's savepoint backs the
    /// row out.
    static func close(_ draftID: String, by submission: SubmissionRecord, in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE drafts SET submission_id = ?, updated_at = ? WHERE id = ? AND submission_id IS NULL")
            .execute(arguments: [submission.id, submission.receivedAt.storedMilliseconds, draftID])
        if db.changesCount > 0 { return }
        guard let submissionID = try draft(id: draftID, in: db)?.submissionID,
              let existing = try SubmissionQueries.submission(id: submissionID, in: db) else {
            throw Missing(draftID: draftID)
        }
        throw Submitted(existing: existing)
    }
}
