import FormStore
import Foundation
import PostgresNIO

/// What the admin sees of the delivery queue, and its manual redeliveries.
extension PostgresFormStore {
    /// A filter not given is a null parameter; the server plans each call with its values, so the
    /// test of a null folds away and the index of the filters given serves the query.
    public func deliveries(
        status: [DeliveryStatus]?, formID: String?, before position: (createdAtMilliseconds: Int64, id: String)?, limit: Int
    ) async throws -> [DeliveryRecord] {
        let statuses = status.flatMap { $0.isEmpty ? nil : $0.map(\.rawValue) }
        return try await read { connection in
            try await connection.query("""
                SELECT \(unescaped: Self.deliveryColumns)
                FROM deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
                WHERE (\(statuses)::text[] IS NULL OR d.status = ANY (\(statuses)::text[]))
                    AND (\(formID)::text IS NULL OR d.form_id = \(formID))
                    AND (\(position?.createdAtMilliseconds)::bigint IS NULL
                         OR (d.created_at, d.id) < (\(position?.createdAtMilliseconds), \(position?.id)))
                ORDER BY d.created_at DESC, d.id DESC
                LIMIT \(limit)
                """, logger: self.logger).deliveryRecords()
        }
    }

    /// Both reads in one repeatable-read transaction, so the attempts are those of the row read.
    public func delivery(id: String) async throws -> DeliveryRecord? {
        try await transaction { connection in
            try await connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", logger: self.logger)
            guard var delivery = try await connection.query("""
                SELECT \(unescaped: Self.deliveryColumns)
                FROM deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = \(id)
                """, logger: self.logger).deliveryRecords().first
            else { return nil }
            let rows = try await connection.query("""
                SELECT attempted_at, status_code, duration_ms, error, response_excerpt FROM delivery_attempts
                WHERE delivery_id = \(id) ORDER BY id
                """, logger: self.logger)
            for try await (attemptedAt, statusCode, duration, error, excerpt) in rows.decode((Int64, Int?, Int, String?, String?).self) {
                delivery.attempts.append(AttemptRecord(
                    attemptedAt: Date(storedMilliseconds: attemptedAt), statusCode: statusCode, durationMilliseconds: duration,
                    error: error, responseExcerpt: excerpt))
            }
            return delivery
        }
    }

    /// The delivery's row is locked while it is checked and queued: a claim meanwhile skips it, and a
    /// claim that holds it already makes this wait and then answer `inFlight`.
    public func redeliver(id: String, now: Date, audit: AuditNote?) async throws -> RedeliveryOutcome {
        let milliseconds = now.storedMilliseconds
        return try await transaction { connection in
            let rows = try await connection.query("""
                SELECT d.endpoint_id, e.deleted_at, e.disabled_at, d.lease_owner, d.lease_expires_at
                FROM deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
                WHERE d.id = \(id)
                FOR NO KEY UPDATE OF d
                """, logger: self.logger)
            var found: (endpointID: String, deletedAt: Int64?, disabledAt: Int64?, leaseOwner: String?, leaseExpiresAt: Int64?)?
            for try await row in rows.decode((String, Int64?, Int64?, String?, Int64?).self) { found = row }
            guard let state = found else { return .unknownDelivery }
            if state.deletedAt != nil { return .endpointDeleted(endpointID: state.endpointID) }
            if state.disabledAt != nil { return .endpointDisabled(endpointID: state.endpointID) }
            if state.leaseOwner != nil, let expires = state.leaseExpiresAt, expires > milliseconds {
                return .inFlight(leaseExpiresAt: Date(storedMilliseconds: expires))
            }
            try await connection.execute("""
                UPDATE deliveries SET status = 'pending', next_attempt_at = \(milliseconds), updated_at = \(milliseconds)
                WHERE id = \(id)
                """, logger: self.logger)
            try await self.appendAudit(audit, on: connection)
            return .queued
        }
    }

    public func deliveryStats(now: Date) async throws -> (pending: Int, oldestPendingAge: TimeInterval?) {
        let (pending, oldest) = try await read { connection -> (Int, Int64?) in
            let rows = try await connection.query(
                "SELECT COUNT(*), MIN(created_at) FROM deliveries WHERE status IN ('pending', 'failed')", logger: self.logger)
            for try await row in rows.decode((Int, Int64?).self) { return row }
            return (0, nil)
        }
        return (pending, oldest.map { max(0, now.timeIntervalSince(Date(storedMilliseconds: $0))) })
    }

    /// The columns `deliveryRecords()` reads, by position, from `deliveries d` joined with `webhook_endpoints e`.
    private static let deliveryColumns = """
        d.id, d.endpoint_id, e.url, d.submission_id, d.form_id, d.status, d.attempts, d.next_attempt_at, d.created_at,
            d.updated_at, d.last_status_code, d.last_error
        """
}

extension PostgresRowSequence {
    /// The rows as deliveries without their attempts, from columns in ``DeliveryRecord``'s order.
    fileprivate func deliveryRecords() async throws -> [DeliveryRecord] {
        var records: [DeliveryRecord] = []
        for try await (id, endpointID, url, submissionID, formID, status, attempts, nextAttemptAt, createdAt, updatedAt, lastStatusCode, lastError)
            in decode((String, String, String, String, String, String, Int, Int64, Int64, Int64, Int?, String?).self) {
            guard let status = DeliveryStatus(rawValue: status) else {
                throw StoreError.unavailable("delivery \(id) has an unknown status \(status)")
            }
            records.append(DeliveryRecord(
                id: id, endpointID: endpointID, endpointURL: url, submissionID: submissionID, formID: formID, status: status,
                attemptCount: attempts, nextAttemptAt: Date(storedMilliseconds: nextAttemptAt),
                createdAt: Date(storedMilliseconds: createdAt), updatedAt: Date(storedMilliseconds: updatedAt),
                lastStatusCode: lastStatusCode, lastError: lastError, attempts: []))
        }
        return records
    }
}
