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

    /// Why a submission cannot close its draft: the draft is open at another revision than the one it was made from.
    struct Changed: Error {
        var draftID: String
    }

    static func draft(id: String, in db: Database) throws -> DraftRecord? {
        try DraftRecord.fetchOne(db.cachedStatement(sql: "SELECT \(columns) FROM drafts WHERE id = ?"), arguments: [id])
    }

    /// Ties the unbound uploads of the draft's form among `uploadIDs` to the draft, and keeps each at
    /// least until `expiresAt`.
    static func tieUploads(_ uploadIDs: [String], to draftID: String, formID: String, expiresAt: Date, in db: Database) throws {
        if uploadIDs.isEmpty { return }
        // Cached per number of ids: a renderer saving as a person types runs this on every change.
        try db.cachedStatement(sql: """
            UPDATE uploads SET draft_id = ?, expires_at = MAX(expires_at, ?)
            WHERE id IN (\(databaseQuestionMarks(count: uploadIDs.count))) AND submission_id IS NULL AND form_id = ?
            """).execute(arguments: [draftID, expiresAt.storedMilliseconds] + StatementArguments(uploadIDs) + [formID])
    }

    /// Lets go of the unbound uploads of `draftIDs` other than `kept`: they no longer name the drafts
    /// and expire at `expiresAt` (or earlier, when they already did), for the upload sweeper. Uploads
    /// bound to a submission keep theirs.
    static func releaseUploads(
        ofDrafts draftIDs: [String], except kept: [String] = [], expiringAt expiresAt: Date, in db: Database
    ) throws {
        if draftIDs.isEmpty { return }
        try db.cachedStatement(sql: """
            UPDATE uploads SET expires_at = MIN(expires_at, ?), draft_id = NULL
            WHERE draft_id IN (\(databaseQuestionMarks(count: draftIDs.count))) AND submission_id IS NULL
                AND id NOT IN (\(databaseQuestionMarks(count: kept.count)))
            """).execute(arguments: [expiresAt.storedMilliseconds] + StatementArguments(draftIDs) + StatementArguments(kept))
    }

    /// Counts a draft as started by `clientAddress` in `hour` (milliseconds / 3 600 000) unless the client
    /// already started `limit` in it: one statement, so that the count and its check cannot be split.
    static func countStart(clientAddress: String, hour: Int64, limit: Int, in db: Database) throws {
        // A new row starts at 1 without the update's check: a limit below 1 is refused here.
        guard limit > 0, try Int.fetchOne(db.cachedStatement(sql: """
            INSERT INTO draft_starts (client_address, hour, count) VALUES (?, ?, 1)
            ON CONFLICT (client_address, hour) DO UPDATE SET count = draft_starts.count + 1
            WHERE draft_starts.count < ?
            RETURNING count
            """), arguments: [clientAddress, hour, limit]) != nil else {
            throw StoreError.limitReached("client \(clientAddress) started \(limit) drafts this hour")
        }
    }

    /// Forgets the starts counted in hours before `hour`.
    static func forgetStarts(before hour: Int64, in db: Database) throws {
        try db.execute(sql: "DELETE FROM draft_starts WHERE hour < ?", arguments: [hour])
    }

    /// Closes the draft `submission` is submitted from, in its savepoint, when it is open and, if
    /// `revision` is given, at that revision; throws ``Submitted`` when it was submitted already,
    /// ``Changed`` when it is open at another revision and ``Missing`` when there is none, so the
    /// caller's savepoint backs the row out.
    static func close(_ draftID: String, at revision: Int?, by submission: SubmissionRecord, in db: Database) throws {
        try db.cachedStatement(sql: """
            UPDATE drafts SET submission_id = ?, updated_at = ?
            WHERE id = ? AND submission_id IS NULL AND (? IS NULL OR revision = ?)
            """).execute(arguments: [submission.id, submission.receivedAt.storedMilliseconds, draftID, revision, revision])
        if db.changesCount > 0 { return }
        guard let current = try draft(id: draftID, in: db) else { throw Missing(draftID: draftID) }
        guard let submissionID = current.submissionID else { throw Changed(draftID: draftID) }
        guard let existing = try SubmissionQueries.submission(id: submissionID, in: db) else { throw Missing(draftID: draftID) }
        throw Submitted(existing: existing)
    }
}
