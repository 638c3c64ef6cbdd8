import GRDB

/// Writes one group of draft changes in one transaction, each a compare-and-set on its draft's
/// revision, in the order they were queued: of two changes made from one revision, the first wins
/// and the second is answered the draft as the first left it.
enum DraftChangeWriter {
    static func write(_ group: [DraftChange], in db: Database) throws -> [Result<DraftUpdateOutcome, StoreError>] {
        var results: [Result<DraftUpdateOutcome, StoreError>] = []
        results.reserveCapacity(group.count)
        try db.inTransaction(.immediate) {
            for change in group { results.append(.success(try apply(change, in: db))) }
            return .commit
        }
        return results
    }

    private static func apply(_ change: DraftChange, in db: Database) throws -> DraftUpdateOutcome {
        // The row as changed comes back from the UPDATE itself: no second read on the common path.
        let updated = try DraftRecord.fetchOne(db.cachedStatement(sql: """
            UPDATE drafts SET revision = revision + 1, "values" = ?, updated_at = ?, expires_at = ?
            WHERE id = ? AND revision = ? AND submission_id IS NULL
            RETURNING \(DraftQueries.columns)
            """), arguments: [
                change.values, change.updatedAt.storedMilliseconds, change.expiresAt.storedMilliseconds, change.id,
                change.expectedRevision,
            ])
        if let updated {
            try DraftQueries.tieUploads(change.uploadIDs, to: change.id, formID: updated.formID, expiresAt: change.expiresAt, in: db)
            try DraftQueries.releaseUploads(
                ofDrafts: [change.id], except: change.uploadIDs, expiringAt: change.releasedUploadsExpireAt, in: db)
            return .updated(updated)
        }
        guard let current = try DraftQueries.draft(id: change.id, in: db) else { return .notFound }
        return current.submissionID == nil ? .revisionMismatch(current: current) : .submitted(current: current)
    }
}
