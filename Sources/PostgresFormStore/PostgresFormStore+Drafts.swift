import FormStore
import Foundation
import PostgresNIO

/// Drafts. Closing one when it is submitted is the group writer's (`SubmissionGroupWriter`).
extension PostgresFormStore: DraftStore {
    public func createDraft(_ draft: DraftRecord, uploadIDs: [String]) async throws {
        try await transaction { connection in
            let inserted: Bool
            do {
                inserted = try await connection.query("""
                    INSERT INTO drafts (\(unescaped: PostgresDraftQueries.columns))
                    VALUES (\(draft.id), \(draft.formID), \(draft.formVersion), \(draft.tokenHash), \(draft.revision),
                        \(draft.values), \(draft.clientAddress), \(draft.createdAt.storedMilliseconds),
                        \(draft.updatedAt.storedMilliseconds), \(draft.expiresAt.storedMilliseconds), \(draft.submissionID))
                    ON CONFLICT (id) DO NOTHING
                    RETURNING 1
                    """, logger: self.logger).first(as: Int.self) != nil
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23503" {
                throw StoreError.notFound("form \(draft.formID) has no version \(draft.formVersion)")
            }
            guard inserted else { throw StoreError.conflict("draft \(draft.id) exists") }
            try await PostgresDraftQueries.tieUploads(
                uploadIDs, to: draft.id, formID: draft.formID, expiresAt: draft.expiresAt, on: connection, logger: self.logger)
            // Last: the counter's row is the most contended lock of the transaction, so it is held the shortest.
            try await PostgresFormStatsQueries.countDraftStarted(
                formID: draft.formID, day: draft.createdAt.statsDay, on: connection, logger: self.logger)
        }
    }

    public func draft(id: String) async throws -> DraftRecord? {
        try await read { connection in
            try await PostgresDraftQueries.draft(id: id, on: connection, logger: self.logger)
        }
    }

    public func updateDraft(_ change: DraftChange) async throws -> DraftUpdateOutcome {
        try await transaction { connection in
            let updated = try await connection.query("""
                UPDATE drafts SET revision = revision + 1, "values" = \(change.values),
                    updated_at = \(change.updatedAt.storedMilliseconds), expires_at = \(change.expiresAt.storedMilliseconds)
                WHERE id = \(change.id) AND revision = \(change.expectedRevision) AND submission_id IS NULL
                RETURNING \(unescaped: PostgresDraftQueries.columns)
                """, logger: self.logger).draftRecords().first
            if let updated {
                try await PostgresDraftQueries.tieUploads(
                    change.uploadIDs, to: updated.id, formID: updated.formID, expiresAt: change.expiresAt, on: connection,
                    logger: self.logger)
                return .updated(updated)
            }
            guard let current = try await PostgresDraftQueries.draft(id: change.id, on: connection, logger: self.logger) else {
                return .notFound
            }
            return current.submissionID == nil ? .revisionMismatch(current: current) : .submitted(current: current)
        }
    }

    public func deleteDraft(id: String) async throws -> Bool {
        try await transaction { connection in
            let deleted = try await connection.query("DELETE FROM drafts WHERE id = \(id) RETURNING 1", logger: self.logger)
                .first(as: Int.self) != nil
            if deleted { try await PostgresDraftQueries.releaseUploads(ofDrafts: [id], on: connection, logger: self.logger) }
            return deleted
        }
    }

    public func deleteExpiredDrafts(before date: Date, limit: Int) async throws -> Int {
        try await transaction { connection in
            // Drafts being submitted meanwhile (locked by a group) are skipped: the next sweep takes them.
            var deleted: [String] = []
            for try await id in try await connection.query("""
                DELETE FROM drafts WHERE id IN (
                    SELECT id FROM drafts WHERE expires_at < \(date.storedMilliseconds)
                    ORDER BY expires_at, id LIMIT \(Int64(clamping: limit)) FOR UPDATE SKIP LOCKED)
                RETURNING id
                """, logger: self.logger).decode(String.self) {
                deleted.append(id)
            }
            try await PostgresDraftQueries.releaseUploads(ofDrafts: deleted, on: connection, logger: self.logger)
            return deleted.count
        }
    }

    public func draftCount(clientAddress: String, since: Date) async throws -> Int {
        try await read { connection in
            try await connection.query("""
                SELECT COUNT(*) FROM drafts WHERE client_address = \(clientAddress) AND created_at >= \(since.storedMilliseconds)
                """, logger: self.logger).first(as: Int.self) ?? 0
        }
    }
}
