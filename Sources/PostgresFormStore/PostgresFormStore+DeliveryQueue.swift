import FormStore
import Foundation
import PostgresNIO

/// The delivery queue, shared by the workers of every node: a claim locks the rows it leases with
/// `SKIP LOCKED`, so nodes claiming at once never get the same delivery nor wait for each other.
/// Rows are locked `FOR NO KEY UPDATE`, the lock their update takes anyway: an attempt being inserted,
/// whose foreign key only shares the delivery's key, does not hold them up.
extension PostgresFormStore {
    /// Claiming also moves `next_attempt_at` to the lease's end, so the due index skips rows in flight
    /// and a row whose node died becomes due again exactly when its lease expires.
    ///
    /// One statement: due rows of usable endpoints are locked (rows another claim holds are skipped),
    /// then those past their endpoint's room are left out, in order, and the first `limit` of the rest
    /// are leased. With partial rooms, twice `limit` rows are locked so that skipping some still fills
    /// the claim; rows locked and not leased are unlocked when the statement ends, and the claim may
    /// come back short. With no endpoint excluded the rows come from the head of the due index
    /// (``claimHeadSQL``); otherwise each endpoint's rows are read on their own (``claimPerEndpointSQL``),
    /// so that an excluded endpoint's backlog is never walked.
    public func claimDueDeliveries(
        owner: String, limit: Int, now: Date, lease: TimeInterval, excludingEndpoints: Set<String>, roomByEndpoint: [String: Int]
    ) async throws -> [ClaimedDelivery] {
        guard limit > 0 else { return [] }
        let leaseEnd = now.addingTimeInterval(lease).storedMilliseconds
        let now = now.storedMilliseconds
        let excluded = excludingEndpoints.union(roomByEndpoint.filter { $0.value <= 0 }.keys).sorted()
        let rooms = roomByEndpoint.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        var binds = PostgresBindings(capacity: 8)
        binds.append(now)
        binds.append(excluded)
        binds.append(roomByEndpoint.isEmpty ? limit : limit * 2)
        binds.append(rooms.map(\.key))
        binds.append(rooms.map(\.value))
        binds.append(limit)
        binds.append(owner)
        binds.append(leaseEnd)
        let query = PostgresQuery(unsafeSQL: excluded.isEmpty ? Self.claimHeadSQL : Self.claimPerEndpointSQL, binds: binds)
        return try await read { connection in
            var claimed: [ClaimedDelivery] = []
            let rows = try await connection.query(query, logger: self.logger)
            for try await (id, endpointID, submissionID, formID, payload, attempts, createdAt, url, secret, previousSecret, previousExpiresAt)
                in rows.decode((String, String, String, String, Data, Int, Int64, String, Data, Data?, Int64?).self) {
                // The previous secret comes along only while it is still valid.
                let previousExpiry = previousExpiresAt.flatMap { $0 > now ? $0 : nil }
                claimed.append(ClaimedDelivery(
                    id: id, endpointID: endpointID, submissionID: submissionID, formID: formID, url: url,
                    secretCiphertext: [UInt8](secret),
                    previousSecretCiphertext: previousExpiry == nil ? nil : previousSecret.map { [UInt8]($0) },
                    previousSecretExpiresAt: previousExpiry.map(Date.init(storedMilliseconds:)), payload: [UInt8](payload),
                    attempts: attempts, createdAt: Date(storedMilliseconds: createdAt),
                    leaseExpiresAt: Date(storedMilliseconds: leaseEnd)))
            }
            return claimed
        }
    }

    /// The claim statements' parameters: $1 now, $2 the excluded endpoint ids, $3 how many rows to
    /// lock, $4 and $5 the endpoints with a room and their rooms, $6 the limit, $7 the owner, $8 the
    /// lease's end.
    ///
    /// The head of the due index, locked as it is read: the scan goes on past rows that other claims
    /// hold, so nodes claiming at once all fill their claims.
    static let claimHeadSQL = claimSQL(candidates: """
        SELECT d.id, d.endpoint_id, d.next_attempt_at
        FROM deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE d.status IN ('pending', 'failed') AND d.next_attempt_at <= $1
            AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= $1)
            AND e.deleted_at IS NULL AND e.disabled_at IS NULL AND d.endpoint_id <> ALL ($2)
        ORDER BY d.next_attempt_at, d.id
        LIMIT $3
        FOR NO KEY UPDATE OF d SKIP LOCKED
        """)

    /// Per usable endpoint that is not excluded, at most its room (and the limit) of its oldest due
    /// rows, an index range each; then the oldest four times the limit of those are locked, the rows
    /// other claims hold skipped. Locking inside each endpoint's range would lock the limit's worth of
    /// rows for every endpoint. The ids are collected into an array first, so that the rows are then
    /// fetched by their key, not by a scan joined with them. (With only two or three endpoints, the
    /// planner may find filtering the due index as cheap as the ranges, and walk it after all.)
    static let claimPerEndpointSQL = claimSQL(candidates: """
        SELECT d.id, d.endpoint_id, d.next_attempt_at
        FROM deliveries d
        WHERE d.id = ANY (ARRAY(
                SELECT due.id
                FROM webhook_endpoints e
                LEFT JOIN unnest($4::text[], $5::bigint[]) AS room(endpoint_id, size) ON room.endpoint_id = e.id
                CROSS JOIN LATERAL (
                    SELECT id, next_attempt_at FROM deliveries
                    WHERE endpoint_id = e.id AND status IN ('pending', 'failed') AND next_attempt_at <= $1
                        AND (lease_expires_at IS NULL OR lease_expires_at <= $1)
                    ORDER BY next_attempt_at, id
                    LIMIT least($6, COALESCE(room.size, $6))) due
                WHERE e.deleted_at IS NULL AND e.disabled_at IS NULL AND e.id <> ALL ($2)
                ORDER BY due.next_attempt_at, due.id
                LIMIT 4 * $6))
            AND d.status IN ('pending', 'failed') AND d.next_attempt_at <= $1
            AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= $1)
        ORDER BY d.next_attempt_at, d.id
        LIMIT $3
        FOR NO KEY UPDATE OF d SKIP LOCKED
        """)

    /// A claim statement around its `candidates` (the rows it locks, with `id`, `endpoint_id` and
    /// `next_attempt_at`): each endpoint's room is applied to them in order, the first `limit` are
    /// leased, and the leased rows come back oldest due first with their endpoint's url and secrets.
    private static func claimSQL(candidates: String) -> String {
        """
        WITH candidate AS (
        \(candidates)
        ), placed AS (
            SELECT c.id, c.endpoint_id, c.next_attempt_at,
                row_number() OVER (PARTITION BY c.endpoint_id ORDER BY c.next_attempt_at, c.id) AS place
            FROM candidate c
        ), chosen AS (
            SELECT p.id, p.next_attempt_at
            FROM placed p LEFT JOIN unnest($4::text[], $5::bigint[]) AS room(endpoint_id, size)
                ON room.endpoint_id = p.endpoint_id
            WHERE room.size IS NULL OR p.place <= room.size
            ORDER BY p.next_attempt_at, p.id
            LIMIT $6
        ), leased AS (
            UPDATE deliveries d
            SET lease_owner = $7, lease_expires_at = $8, next_attempt_at = $8, updated_at = $1
            FROM chosen, webhook_endpoints e
            WHERE d.id = chosen.id AND e.id = d.endpoint_id
            RETURNING chosen.next_attempt_at AS due, d.id, d.endpoint_id, d.submission_id, d.form_id, d.payload,
                d.attempts, d.created_at, e.url, e.secret_ciphertext, e.previous_secret_ciphertext,
                e.previous_secret_expires_at
        )
        SELECT id, endpoint_id, submission_id, form_id, payload, attempts, created_at, url, secret_ciphertext,
            previous_secret_ciphertext, previous_secret_expires_at
        FROM leased ORDER BY due, id
        """
    }

    /// One transaction per attempt: the delivery's row is locked first, so a claim by another node
    /// meanwhile either happened before (the lease is then lost) or waits for this outcome.
    public func recordAttempt(deliveryID: String, owner: String, attempt: AttemptRecord, outcome: DeliveryOutcome) async throws {
        // The attempt is kept even when the lease was lost (it did happen), so that error is thrown
        // after the commit.
        let lostTo: String? = try await transaction { connection in
            let now = Date().storedMilliseconds
            let rows = try await connection.query(
                "SELECT lease_owner, status FROM deliveries WHERE id = \(deliveryID) FOR NO KEY UPDATE", logger: self.logger)
            var found: (holder: String?, status: String)?
            for try await row in rows.decode((String?, String).self) { found = row }
            guard let found else { throw StoreError.notFound("delivery \(deliveryID)") }
            guard let current = DeliveryStatus(rawValue: found.status) else {
                throw StoreError.unavailable("delivery \(deliveryID) has an unknown status")
            }
            try await connection.execute("""
                INSERT INTO delivery_attempts (delivery_id, attempted_at, status_code, duration_ms, error, response_excerpt)
                VALUES (\(deliveryID), \(attempt.attemptedAt.storedMilliseconds), \(attempt.statusCode),
                    \(attempt.durationMilliseconds), \(attempt.error), \(attempt.responseExcerpt))
                """, logger: self.logger)
            // A lease released meanwhile (by `releaseLeases`, or by ending the endpoint's deliveries)
            // belongs to no one, so the outcome applies, within what `status(after:)` allows.
            guard found.holder == nil || found.holder == owner, let status = outcome.status(after: current) else {
                try await connection.execute(
                    "UPDATE deliveries SET attempts = attempts + 1, updated_at = \(now) WHERE id = \(deliveryID)",
                    logger: self.logger)
                return found.holder == owner ? nil : found.holder
            }
            try await connection.execute("""
                UPDATE deliveries
                SET status = \(status.rawValue), attempts = attempts + 1,
                    next_attempt_at = COALESCE(\(outcome.retryAt?.storedMilliseconds), next_attempt_at),
                    lease_owner = NULL, lease_expires_at = NULL, updated_at = \(now),
                    last_status_code = \(attempt.statusCode), last_error = \(attempt.error)
                WHERE id = \(deliveryID)
                """, logger: self.logger)
            return nil
        }
        if let lostTo { throw StoreError.leaseLost("delivery \(deliveryID) is leased to \(lostTo)") }
    }

    public func releaseLeases(owner: String) async throws {
        try await read { connection in
            try await connection.execute("""
                UPDATE deliveries
                SET lease_owner = NULL, lease_expires_at = NULL,
                    next_attempt_at = CASE WHEN status IN ('pending', 'failed') THEN \(Date().storedMilliseconds)
                        ELSE next_attempt_at END
                WHERE lease_owner = \(owner)
                """, logger: self.logger)
        }
    }
}
