import Foundation
import GRDB

extension SQLiteFormStore {
    public func createDraft(_ draft: DraftRecord, uploadIDs: [String], maxPerClientPerHour: Int) async throws {
        try await write { db in
            if let clientAddress = draft.clientAddress {
                try DraftQueries.countStart(
                    clientAddress: clientAddress, hour: draft.createdAt.draftStartHour, limit: maxPerClientPerHour, in: db)
            }
            do {
                try db.execute(sql: """
                    INSERT INTO drafts (\(DraftQueries.columns))
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [
                        draft.id, draft.formID, draft.formVersion, draft.tokenHash, draft.revision, draft.values,
                        draft.clientAddress, draft.createdAt.storedMilliseconds, draft.updatedAt.storedMilliseconds,
                        draft.expiresAt.storedMilliseconds, draft.submissionID,
                    ])
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
                throw StoreError.notFound("form \(draft.formID) has no version \(draft.formVersion)")
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw StoreError.conflict("draft \(draft.id) exists")
            }
            try DraftQueries.tieUploads(uploadIDs, to: draft.id, formID: draft.formID, expiresAt: draft.expiresAt, in: db)
            try FormStatsQueries.countDraftStarted(formID: draft.formID, day: draft.createdAt.statsDay, in: db)
        }
    }

    public func draft(id: String) async throws -> DraftRecord? {
        try await read { db in try DraftQueries.draft(id: id, in: db) }
    }

    /// Grouped like submissions: a renderer saves as a person types, and one transaction (one fsync)
    /// per change would cap saving at the disk's fsync rate.
    public func updateDraft(_ change: DraftChange) async throws -> DraftUpdateOutcome {
        try damage.checkWritable()
        return try await draftCommitter.submit(change)
    }

    public func deleteDraft(id: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM drafts WHERE id = ?", arguments: [id])
            guard db.changesCount > 0 else { return false }
            try DraftQueries.releaseUploads(ofDrafts: [id], expiringAt: Date(), in: db)
            return true
        }
    }

    public func deleteExpiredDrafts(before date: Date, limit: Int) async throws -> Int {
        try await write { db in
            try DraftQueries.forgetStarts(before: date.draftStartHour - 1, in: db)
            let ids = try String.fetchAll(db, sql: """
                SELECT id FROM drafts WHERE expires_at < ? ORDER BY expires_at, id LIMIT ?
                """, arguments: [date.storedMilliseconds, Int64(clamping: limit)])
            if ids.isEmpty { return 0 }
            try db.execute(
                sql: "DELETE FROM drafts WHERE id IN (\(databaseQuestionMarks(count: ids.count)))",
                arguments: StatementArguments(ids))
            // Just before `date`: the upload sweep of the same pass, which reads uploads expired before it, takes them.
            try DraftQueries.releaseUploads(
                ofDrafts: ids, expiringAt: Date(storedMilliseconds: date.storedMilliseconds - 1), in: db)
            return ids.count
        }
    }
}
