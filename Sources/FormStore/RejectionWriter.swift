import GRDB

/// Writes one group of rejections into a form's daily counters, in one transaction.
enum RejectionWriter {
    /// Rejections of forms that do not exist are skipped, not failed: the whole group succeeds or fails together.
    static func write(_ group: [Rejection], in db: Database) throws -> [Result<Void, StoreError>] {
        try db.inTransaction(.immediate) {
            var known: [String: Bool] = [:]
            let tally = try RejectionTally(group) { formID in
                if let exists = known[formID] { return exists }
                let exists = try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM forms WHERE id = ?)"), arguments: [formID]) ?? false
                known[formID] = exists
                return exists
            }
            for (formDay, count) in tally.rejected {
                try FormStatsQueries.addRejected(count, formID: formDay.formID, day: formDay.day, in: db)
            }
            for (key, count) in tally.failures {
                try FormStatsQueries.addFailures(count, of: key.failure, formID: key.formDay.formID, day: key.formDay.day, in: db)
            }
            return .commit
        }
        return Array(repeating: .success(()), count: group.count)
    }
}
