import Foundation
import GRDB

/// One ``FormStore/recordAttempt(deliveryID:owner:attempt:outcome:)`` call, queued for a group.
struct RecordedAttempt: Sendable {
    var deliveryID: String
    var owner: String
    var attempt: AttemptRecord
    var outcome: DeliveryOutcome
}

/// Writes a group of delivery attempts in one transaction.
enum AttemptWriter {
    static func write(_ group: [RecordedAttempt], in db: Database) throws -> [Result<Void, StoreError>] {
        var results: [Result<Void, StoreError>] = []
        results.reserveCapacity(group.count)
        try db.inTransaction(.immediate) {
            let now = Date().storedMilliseconds
            for item in group {
                results.append(try record(item, in: db, now: now))
            }
            return .commit
        }
        return results
    }

    /// Appends the attempt and applies its outcome. The attempt is kept even when the lease was lost
    /// (it did happen); the state is then left to the lease's holder. A lease that was released (by
    /// `releaseLeases` or by deleting or disabling the endpoint) belongs to no one, so the outcome
    /// applies, except that a retry or dead outcome does not reopen a delivery that was ended meanwhile.
    private static func record(_ item: RecordedAttempt, in db: Database, now: Int64) throws -> Result<Void, StoreError> {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT lease_owner, status FROM deliveries WHERE id = ?"), arguments: [item.deliveryID])
        else { return .failure(.notFound("delivery \(item.deliveryID)")) }
        let attempt = item.attempt
        try db.cachedStatement(sql: """
            INSERT INTO delivery_attempts (delivery_id, attempted_at, status_code, duration_ms, error, response_excerpt)
            VALUES (?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                item.deliveryID, attempt.attemptedAt.storedMilliseconds, attempt.statusCode, attempt.durationMilliseconds,
                attempt.error, attempt.responseExcerpt,
            ])
        let holder = row["lease_owner"] as String?
        let status = item.outcome.status(after: row["status"])
        let nextAttempt = item.outcome.retryAt?.storedMilliseconds
        guard holder == nil || holder == item.owner, let status else {
            try db.cachedStatement(sql: "UPDATE deliveries SET attempts = attempts + 1, updated_at = ? WHERE id = ?")
                .execute(arguments: [now, item.deliveryID])
            if let holder, holder != item.owner {
                return .failure(.leaseLost("delivery \(item.deliveryID) is leased to \(holder)"))
            }
            return .success(())
        }
        try db.cachedStatement(sql: """
            UPDATE deliveries
            SET status = ?, attempts = attempts + 1, next_attempt_at = COALESCE(?, next_attempt_at),
                lease_owner = NULL, lease_expires_at = NULL, updated_at = ?, last_status_code = ?, last_error = ?
            WHERE id = ?
            """).execute(arguments: [
                status, nextAttempt, now, attempt.statusCode, attempt.error, item.deliveryID,
            ])
        return .success(())
    }
}
