import Foundation
import GRDB

extension SQLiteFormStore {
    // MARK: Endpoints

    public func createEndpoint(_ endpoint: NewEndpoint, audit: AuditNote?) async throws -> EndpointRecord {
        try await write { db in
            let formID = endpoint.record.formID
            guard try Int.fetchOne(
                db, sql: "SELECT 1 FROM forms WHERE id = ? AND deleted_at IS NULL", arguments: [formID]) != nil
            else { throw StoreError.notFound("form \(formID)") }
            if let max = endpoint.maxPerForm, try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM webhook_endpoints WHERE form_id = ? AND deleted_at IS NULL",
                arguments: [formID]) ?? 0 >= max {
                throw StoreError.limitReached("form \(formID) has \(max) endpoints")
            }
            var record = endpoint.record
            record.createdAt = Date(storedMilliseconds: record.createdAt.storedMilliseconds)
            do {
                try record.insert(db)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw StoreError.conflict("endpoint \(record.id) exists")
            }
            try AuditLog.append(audit, in: db)
            return record
        }
    }

    public func endpoints(formID: String) async throws -> [EndpointRecord] {
        try await read { db in
            try EndpointRecord.fetchAll(db, sql: """
                SELECT * FROM webhook_endpoints WHERE form_id = ? AND deleted_at IS NULL ORDER BY created_at, id
                """, arguments: [formID])
        }
    }

    public func endpoint(id: String) async throws -> EndpointRecord? {
        try await read { db in try Self.endpoint(id: id, in: db) }
    }

    public func deleteEndpoint(id: String, audit: AuditNote?) async throws -> Bool {
        try await write { db in
            let now = Date().storedMilliseconds
            try db.execute(
                sql: "UPDATE webhook_endpoints SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL",
                arguments: [now, id])
            guard db.changesCount > 0 else { return false }
            try Self.endOpenDeliveries(endpointID: id, reason: "endpoint deleted", now: now, in: db)
            try AuditLog.append(audit, in: db)
            return true
        }
    }

    public func rotateEndpointSecret(
        id: String, newSecretCiphertext: [UInt8], previousValidUntil: Date, audit: AuditNote?
    ) async throws -> EndpointRecord? {
        try await write { db in
            try db.execute(sql: """
                UPDATE webhook_endpoints
                SET previous_secret_ciphertext = secret_ciphertext, previous_secret_expires_at = ?, secret_ciphertext = ?
                WHERE id = ? AND deleted_at IS NULL
                """, arguments: [previousValidUntil.storedMilliseconds, Data(newSecretCiphertext), id])
            guard db.changesCount > 0 else { return nil }
            try AuditLog.append(audit, in: db)
            return try Self.endpoint(id: id, in: db)
        }
    }

    public func disableEndpoint(id: String, reason: String) async throws {
        try await write { db in
            let now = Date().storedMilliseconds
            guard try Self.endpoint(id: id, in: db) != nil else { throw StoreError.notFound("endpoint \(id)") }
            try db.execute(sql: """
                UPDATE webhook_endpoints SET disabled_at = ?, disabled_reason = ? WHERE id = ? AND disabled_at IS NULL
                """, arguments: [now, reason, id])
            try Self.endOpenDeliveries(endpointID: id, reason: "endpoint disabled: \(reason)", now: now, in: db)
        }
    }

    // MARK: Delivery queue

    /// The columns a claim reads, for the two claim statements below.
    private static let claimColumns = """
        d.id, d.endpoint_id, d.submission_id, d.form_id, d.payload, d.attempts, d.created_at,
            e.url, e.secret_ciphertext, e.previous_secret_ciphertext, e.previous_secret_expires_at
        """

    /// The usual claim: the oldest `cap` entries of the due index (index only), then of those the
    /// oldest `limit` whose endpoint is usable and not excluded. Arguments: now, cap, now, the
    /// excluded endpoint ids as a JSON array, limit.
    static let claimHeadSQL = """
        SELECT \(claimColumns)
        FROM (SELECT id FROM deliveries INDEXED BY deliveries_due
              WHERE status IN ('pending', 'failed') AND next_attempt_at <= ?
              ORDER BY next_attempt_at LIMIT ?) AS head
        JOIN deliveries d ON d.id = head.id JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE (d.lease_expires_at IS NULL OR d.lease_expires_at <= ?)
            AND e.deleted_at IS NULL AND e.disabled_at IS NULL
            AND d.endpoint_id NOT IN (SELECT value FROM json_each(?))
        ORDER BY d.next_attempt_at LIMIT ?
        """

    /// How many of the head's `cap` entries exist (index only). Arguments: now, cap.
    static let claimHeadCountSQL = """
        SELECT COUNT(*) FROM (SELECT 1 FROM deliveries INDEXED BY deliveries_due
            WHERE status IN ('pending', 'failed') AND next_attempt_at <= ? LIMIT ?)
        """

    /// When excluded endpoints fill the head: per usable endpoint, at most `limit` of its oldest due
    /// rows (an index range each), then the oldest `limit` of those, so a skipped endpoint's backlog
    /// is never walked. Arguments: now, now, limit, the excluded ids as a JSON array, limit.
    static let claimPerEndpointSQL = """
        SELECT \(claimColumns)
        FROM webhook_endpoints e JOIN deliveries d ON d.id IN (
            SELECT due.id FROM deliveries due INDEXED BY deliveries_due_by_endpoint
            WHERE due.endpoint_id = e.id AND due.status IN ('pending', 'failed') AND due.next_attempt_at <= ?
                AND (due.lease_expires_at IS NULL OR due.lease_expires_at <= ?)
            ORDER BY due.next_attempt_at LIMIT ?)
        WHERE e.deleted_at IS NULL AND e.disabled_at IS NULL
            AND e.id NOT IN (SELECT value FROM json_each(?))
        ORDER BY d.next_attempt_at LIMIT ?
        """

    /// Claiming also moves `next_attempt_at` to the lease's end, so the due index skips rows in
    /// flight and a row whose worker died becomes due again exactly when its lease expires. The index
    /// is forced: without statistics SQLite would pick the status index and sort every open row.
    /// `excludingEndpoints` lets the worker skip endpoints whose share of in-flight slots is used up.
    /// `roomByEndpoint` is applied to the rows read, in order, before any is leased: rows past an
    /// endpoint's room are left alone, so the claim may come back short.
    public func claimDueDeliveries(
        owner: String, limit: Int, now: Date, lease: TimeInterval, excludingEndpoints: Set<String>, roomByEndpoint: [String: Int]
    ) async throws -> [ClaimedDelivery] {
        guard limit > 0 else { return [] }
        let nowMilliseconds = now.storedMilliseconds
        let leaseEnd = now.addingTimeInterval(lease).storedMilliseconds
        let excludingEndpoints = excludingEndpoints.union(roomByEndpoint.filter { $0.value <= 0 }.keys)
        // One statement text whatever the set's size: the ids travel as a JSON array.
        let excluded = String(decoding: try JSONSerialization.data(withJSONObject: excludingEndpoints.sorted()), as: UTF8.self)
        // With partial rooms, more rows than `limit` are read so that skipping some still fills the claim.
        let readLimit = roomByEndpoint.isEmpty ? limit : limit * 2
        return try await write { db in
            // The head of the due index serves almost every claim for a few `limit` of index entries.
            // Only excluded endpoints' rows are dropped from it (rows of disabled endpoints are ended,
            // leased ones are not due), so a short answer from a full head means a skipped endpoint's
            // backlog sits in front: then each usable endpoint is read on its own instead of walking it.
            let cap = limit * 4
            var rows = try Self.withinRoom(Row.fetchAll(
                db.cachedStatement(sql: Self.claimHeadSQL), arguments: [nowMilliseconds, cap, nowMilliseconds, excluded, readLimit]),
                roomByEndpoint, limit: limit)
            if rows.count < limit, !excludingEndpoints.isEmpty || !roomByEndpoint.isEmpty,
               try Int.fetchOne(db.cachedStatement(sql: Self.claimHeadCountSQL), arguments: [nowMilliseconds, cap]) == cap {
                rows = try Self.withinRoom(Row.fetchAll(
                    db.cachedStatement(sql: Self.claimPerEndpointSQL), arguments: [nowMilliseconds, nowMilliseconds, limit, excluded, readLimit]),
                    roomByEndpoint, limit: limit)
            }
            let lease = try db.cachedStatement(sql: """
                UPDATE deliveries SET lease_owner = ?, lease_expires_at = ?, next_attempt_at = ?, updated_at = ? WHERE id = ?
                """)
            return try rows.map { row in
                let claimed = ClaimedDelivery(claimed: row, now: nowMilliseconds, leaseEnd: leaseEnd)
                try lease.execute(arguments: [owner, leaseEnd, leaseEnd, nowMilliseconds, claimed.id])
                return claimed
            }
        }
    }

    /// The first `limit` of `rows` (in order) that fit their endpoint's room.
    private static func withinRoom(_ rows: [Row], _ roomByEndpoint: [String: Int], limit: Int) -> [Row] {
        guard !roomByEndpoint.isEmpty else { return Array(rows.prefix(limit)) }
        var room = roomByEndpoint
        var kept: [Row] = []
        for row in rows where kept.count < limit {
            let endpoint: String = row[ClaimedDelivery.Columns.endpointID]
            if let left = room[endpoint] {
                guard left > 0 else { continue }
                room[endpoint] = left - 1
            }
            kept.append(row)
        }
        return kept
    }

    /// Concurrent calls are committed in groups, like submissions, so a busy worker does not pay one
    /// fsync per attempt.
    public func recordAttempt(deliveryID: String, owner: String, attempt: AttemptRecord, outcome: DeliveryOutcome) async throws {
        try await attemptCommitter.submit(
            RecordedAttempt(deliveryID: deliveryID, owner: owner, attempt: attempt, outcome: outcome))
    }

    public func releaseLeases(owner: String) async throws {
        try await write { db in
            try db.execute(sql: """
                UPDATE deliveries
                SET lease_owner = NULL, lease_expires_at = NULL,
                    next_attempt_at = CASE WHEN status IN ('pending', 'failed') THEN ? ELSE next_attempt_at END
                WHERE lease_owner = ?
                """, arguments: [Date().storedMilliseconds, owner])
        }
    }

    // MARK: Admin views

    public func deliveries(
        status: [DeliveryStatus]?, formID: String?, before position: (createdAtMilliseconds: Int64, id: String)?, limit: Int
    ) async throws -> [DeliveryRecord] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let status, !status.isEmpty {
            conditions.append("d.status IN (\(status.map { _ in "?" }.joined(separator: ", ")))")
            arguments += StatementArguments(status)
        }
        if let formID {
            conditions.append("d.form_id = ?")
            arguments += [formID]
        }
        if let position {
            conditions.append("(d.created_at, d.id) < (?, ?)")
            arguments += [position.createdAtMilliseconds, position.id]
        }
        arguments += [limit]
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql = """
            SELECT d.*, e.url FROM deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
            \(whereClause)
            ORDER BY d.created_at DESC, d.id DESC LIMIT ?
            """
        let finalArguments = arguments
        return try await read { db in try DeliveryRecord.fetchAll(db, sql: sql, arguments: finalArguments) }
    }

    public func delivery(id: String) async throws -> DeliveryRecord? {
        try await read { db in
            guard var delivery = try DeliveryRecord.fetchOne(db, sql: """
                SELECT d.*, e.url FROM deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = ?
                """, arguments: [id])
            else { return nil }
            delivery.attempts = try AttemptRecord.fetchAll(db, sql: """
                SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY id
                """, arguments: [id])
            return delivery
        }
    }

    public func redeliver(id: String, now: Date, audit: AuditNote?) async throws -> RedeliveryOutcome {
        try await write { db in
            guard let state = try RedeliveryState.fetchOne(db, sql: """
                SELECT d.endpoint_id, e.deleted_at, e.disabled_at, d.lease_owner, d.lease_expires_at
                FROM deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
                WHERE d.id = ?
                """, arguments: [id])
            else { return .unknownDelivery }
            if state.endpointDeletedAt != nil { return .endpointDeleted(endpointID: state.endpointID) }
            if state.endpointDisabledAt != nil { return .endpointDisabled(endpointID: state.endpointID) }
            let milliseconds = now.storedMilliseconds
            if state.leaseOwner != nil, let expires = state.leaseExpiresAt, expires > milliseconds {
                return .inFlight(leaseExpiresAt: Date(storedMilliseconds: expires))
            }
            try db.execute(sql: """
                UPDATE deliveries SET status = 'pending', next_attempt_at = ?, updated_at = ? WHERE id = ?
                """, arguments: [milliseconds, milliseconds, id])
            try AuditLog.append(audit, in: db)
            return .queued
        }
    }

    public func deliveryStats(now: Date) async throws -> (pending: Int, oldestPendingAge: TimeInterval?) {
        let (pending, oldest) = try await read { db -> (Int, Int64?) in
            let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*) AS pending, MIN(created_at) AS oldest FROM deliveries WHERE status IN ('pending', 'failed')
                """)
            return (row?["pending"] ?? 0, row?["oldest"])
        }
        let age = oldest.map { max(0, now.timeIntervalSince(Date(storedMilliseconds: $0))) }
        return (pending, age)
    }

    // MARK: Helpers

    private static func endpoint(id: String, in db: Database) throws -> EndpointRecord? {
        try EndpointRecord.fetchOne(db, sql: "SELECT * FROM webhook_endpoints WHERE id = ? AND deleted_at IS NULL", arguments: [id])
    }

    /// Deliveries that can no longer be sent are marked dead so the queue does not count them.
    private static func endOpenDeliveries(endpointID: String, reason: String, now: Int64, in db: Database) throws {
        try db.execute(sql: """
            UPDATE deliveries SET status = 'dead', last_error = ?, lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
            WHERE endpoint_id = ? AND status IN ('pending', 'failed')
            """, arguments: [reason, now, endpointID])
    }
}

/// What a redeliver checks of a delivery and its endpoint.
private struct RedeliveryState: Decodable, FetchableRecord {
    enum CodingKeys: String, CodingKey {
        case endpointID = "endpoint_id", endpointDeletedAt = "deleted_at", endpointDisabledAt = "disabled_at"
        case leaseOwner = "lease_owner", leaseExpiresAt = "lease_expires_at"
    }

    var endpointID: String
    var endpointDeletedAt: Int64?
    var endpointDisabledAt: Int64?
    var leaseOwner: String?
    var leaseExpiresAt: Int64?
}

extension ClaimedDelivery {
    /// The delivery's columns the claim statements read (`claimColumns`); the endpoint's are
    /// ``EndpointRecord/Columns``.
    fileprivate enum Columns {
        static let id = Column("id")
        static let endpointID = Column("endpoint_id")
        static let submissionID = Column("submission_id")
        static let formID = Column("form_id")
        static let payload = Column("payload")
        static let attempts = Column("attempts")
        static let createdAt = Column("created_at")
    }

    /// A row of a claim statement, leased until `leaseEnd`; the previous secret comes along only while
    /// it is still valid at `now`. Read by hand: the secrets and the payload are blobs (see ``StoredRecord``).
    fileprivate init(claimed row: Row, now: Int64, leaseEnd: Int64) {
        typealias Endpoint = EndpointRecord.Columns
        let previousExpiry = (row[Endpoint.previousSecretExpiresAt] as Int64?).flatMap { $0 > now ? $0 : nil }
        self.init(
            id: row[Columns.id], endpointID: row[Columns.endpointID], submissionID: row[Columns.submissionID],
            formID: row[Columns.formID], url: row[Endpoint.url], secretCiphertext: [UInt8](row[Endpoint.secretCiphertext] as Data),
            previousSecretCiphertext: previousExpiry == nil
                ? nil : (row[Endpoint.previousSecretCiphertext] as Data?).map { [UInt8]($0) },
            previousSecretExpiresAt: previousExpiry.map(Date.init(storedMilliseconds:)),
            payload: [UInt8](row[Columns.payload] as Data), attempts: row[Columns.attempts],
            createdAt: Date(storedMilliseconds: row[Columns.createdAt]), leaseExpiresAt: Date(storedMilliseconds: leaseEnd))
    }
}
