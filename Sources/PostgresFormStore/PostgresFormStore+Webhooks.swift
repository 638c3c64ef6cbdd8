import FormStore
import Foundation
import PostgresNIO

/// Webhook endpoints. The delivery queue is in `PostgresFormStore+DeliveryQueue.swift`, the admin
/// views of deliveries in `PostgresFormStore+DeliveryViews.swift`.
extension PostgresFormStore: WebhookStore {
    /// The form's row is locked first, so that nodes adding endpoints to one form at once count them
    /// one after the other, and a delete of the form running meanwhile is seen.
    public func createEndpoint(_ endpoint: NewEndpoint, audit: AuditNote?) async throws -> EndpointRecord {
        var rounded = endpoint.record
        rounded.createdAt = Date(storedMilliseconds: rounded.createdAt.storedMilliseconds)
        let record = rounded
        let formID = record.formID
        return try await transaction { connection in
            let form = try await connection.query(
                "SELECT 1 FROM forms WHERE id = \(formID) AND deleted_at IS NULL FOR NO KEY UPDATE", logger: self.logger
            ).first(as: Int.self)
            guard form != nil else { throw StoreError.notFound("form \(formID)") }
            if let max = endpoint.maxPerForm {
                let count = try await connection.query(
                    "SELECT COUNT(*) FROM webhook_endpoints WHERE form_id = \(formID) AND deleted_at IS NULL",
                    logger: self.logger
                ).first(as: Int.self) ?? 0
                if count >= max { throw StoreError.limitReached("form \(formID) has \(max) endpoints") }
            }
            let inserted = try await connection.query("""
                INSERT INTO webhook_endpoints (id, form_id, url, secret_ciphertext, created_at)
                VALUES (\(record.id), \(formID), \(record.url), \(Data(record.secretCiphertext)), \(record.createdAt.storedMilliseconds))
                ON CONFLICT (id) DO NOTHING
                RETURNING 1
                """, logger: self.logger).first(as: Int.self)
            guard inserted != nil else { throw StoreError.conflict("endpoint \(record.id) exists") }
            try await self.appendAudit(audit, on: connection)
            return record
        }
    }

    public func endpoints(formID: String) async throws -> [EndpointRecord] {
        try await read { connection in
            try await connection.query("""
                SELECT \(unescaped: Self.endpointColumns) FROM webhook_endpoints
                WHERE form_id = \(formID) AND deleted_at IS NULL ORDER BY created_at, id
                """, logger: self.logger).endpointRecords()
        }
    }

    public func endpoint(id: String) async throws -> EndpointRecord? {
        try await read { connection in
            try await connection.query("""
                SELECT \(unescaped: Self.endpointColumns) FROM webhook_endpoints WHERE id = \(id) AND deleted_at IS NULL
                """, logger: self.logger).endpointRecords().first
        }
    }

    public func deleteEndpoint(id: String, audit: AuditNote?) async throws -> Bool {
        try await transaction { connection in
            let now = Date().storedMilliseconds
            let deleted = try await connection.query("""
                UPDATE webhook_endpoints SET deleted_at = \(now) WHERE id = \(id) AND deleted_at IS NULL RETURNING 1
                """, logger: self.logger).first(as: Int.self)
            guard deleted != nil else { return false }
            try await self.endOpenDeliveries(endpointID: id, reason: "endpoint deleted", now: now, on: connection)
            try await self.appendAudit(audit, on: connection)
            return true
        }
    }

    public func rotateEndpointSecret(
        id: String, newSecretCiphertext: [UInt8], previousValidUntil: Date, audit: AuditNote?
    ) async throws -> EndpointRecord? {
        try await transaction { connection in
            let rotated = try await connection.query("""
                UPDATE webhook_endpoints
                SET previous_secret_ciphertext = secret_ciphertext,
                    previous_secret_expires_at = \(previousValidUntil.storedMilliseconds),
                    secret_ciphertext = \(Data(newSecretCiphertext))
                WHERE id = \(id) AND deleted_at IS NULL
                RETURNING \(unescaped: Self.endpointColumns)
                """, logger: self.logger).endpointRecords().first
            if rotated != nil { try await self.appendAudit(audit, on: connection) }
            return rotated
        }
    }

    /// An endpoint disabled already keeps its first time and reason; its open deliveries are ended all
    /// the same, as SQLite's store does.
    public func disableEndpoint(id: String, reason: String) async throws {
        try await transaction { connection in
            let now = Date().storedMilliseconds
            let found = try await connection.query("""
                UPDATE webhook_endpoints
                SET disabled_reason = CASE WHEN disabled_at IS NULL THEN \(reason) ELSE disabled_reason END,
                    disabled_at = COALESCE(disabled_at, \(now))
                WHERE id = \(id) AND deleted_at IS NULL
                RETURNING 1
                """, logger: self.logger).first(as: Int.self)
            guard found != nil else { throw StoreError.notFound("endpoint \(id)") }
            try await self.endOpenDeliveries(
                endpointID: id, reason: "endpoint disabled: \(reason)", now: now, on: connection)
        }
    }

    /// Deliveries that can no longer be sent are marked dead so the queue does not count them; their
    /// leases go too, so an attempt that ends later does not reopen them.
    private func endOpenDeliveries(endpointID: String, reason: String, now: Int64, on connection: PostgresConnection) async throws {
        try await connection.execute("""
            UPDATE deliveries SET status = 'dead', last_error = \(reason), lease_owner = NULL, lease_expires_at = NULL,
                updated_at = \(now)
            WHERE endpoint_id = \(endpointID) AND status IN ('pending', 'failed')
            """, logger: logger)
    }

    /// The columns `endpointRecords()` reads, by position.
    private static let endpointColumns = """
        id, form_id, url, secret_ciphertext, previous_secret_ciphertext, previous_secret_expires_at, disabled_at,
            disabled_reason, created_at
        """
}

extension PostgresRowSequence {
    /// The rows as endpoints, from columns in ``EndpointRecord``'s order.
    fileprivate func endpointRecords() async throws -> [EndpointRecord] {
        var records: [EndpointRecord] = []
        for try await (id, formID, url, secret, previousSecret, previousExpiresAt, disabledAt, disabledReason, createdAt)
            in decode((String, String, String, Data, Data?, Int64?, Int64?, String?, Int64).self) {
            records.append(EndpointRecord(
                id: id, formID: formID, url: url, secretCiphertext: [UInt8](secret),
                previousSecretCiphertext: previousSecret.map { [UInt8]($0) },
                previousSecretExpiresAt: previousExpiresAt.map(Date.init(storedMilliseconds:)),
                disabledAt: disabledAt.map(Date.init(storedMilliseconds:)), disabledReason: disabledReason,
                createdAt: Date(storedMilliseconds: createdAt)))
        }
        return records
    }
}
