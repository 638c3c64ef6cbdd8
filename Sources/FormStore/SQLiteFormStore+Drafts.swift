import Foundation
import GRDB

extension SQLiteFormStore {
    public func createDraft(_ draft: DraftRecord, uploadIDs: [String]) async throws {
        try await write { db in
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

    public func updateDraft(_ change: DraftChange) async throws -> DraftUpdateOutcome {
        try await write { db in
            try db.execute(sql: """
                UPDATE drafts SET revision = revision + 1, "values" = ?, updated_at = ?, expires_at = ?
                WHERE id = ? AND revision = ? AND submission_id IS NULL
                """, arguments: [
                    change.values, change.updatedAt.storedMilliseconds, change.expiresAt.storedMilliseconds, change.id,
                    change.expectedRevision,
                ])
            let changed = db.changesCount > 0
            guard let current = try DraftQueries.draft(id: change.id, in: db) else { return .notFound }
            if changed {
                try DraftQueries.tieUploads(
                    change.uploadIDs, to: change.id, formID: current.formID, expiresAt: change.expiresAt, in: db)
                return .updated(current)
            }
            return current.submissionID == nil ? .revisionMismatch(current: current) : .submitted(current: current)
        }
    }

    public func deleteDraft(id: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM drafts WHERE id = ?", arguments: [id])
            guard db.changesCount > 0 else { return false }
            try DraftQueries.releaseUploads(ofDrafts: [id], in: db)
            return true
        }
    }

    public func deleteExpiredDrafts(before date: Date, limit: Int) async throws -> Int {
        try await write { db in
            let ids = try String.fetchAll(db, sql: """
                SELECT id FROM drafts WHERE expires_at < ? ORDER BY expires_at, id LIMIT ?
                """, arguments: [date.storedMilliseconds, Int64(clamping: limit)])
            if ids.isEmpty { return 0 }
            try db.execute(
                sql: "DELETE FROM drafts WHERE id IN (\(databaseQuestionMarks(count: ids.count)))",
                arguments: StatementArguments(ids))
            try DraftQueries.releaseUploads(ofDrafts: ids, in: db)
            return ids.count
        }
    }

    public func draftCount(clientAddress: String, since: Date) async throws -> Int {
        try await read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM drafts WHERE client_address = ? AND created_at >= ?",
                             arguments: [clientAddress, since.storedMilliseconds]) ?? 0
        }
    }
}
