import Foundation

/// Webhook endpoints and the queue of their deliveries.
public protocol WebhookStore: Sendable {
    // MARK: Endpoints

    /// Adds a webhook endpoint to a form. Throws ``StoreError/notFound(_:)`` when the form is unknown,
    /// ``StoreError/limitReached(_:)`` past its `maxPerForm`, ``StoreError/conflict(_:)`` for a taken id.
    /// This and the other admin writes below record `audit`, when given, in their transaction, when
    /// they change something.
    func createEndpoint(_ endpoint: NewEndpoint, audit: AuditNote?) async throws -> EndpointRecord

    /// The endpoints of a form that are not deleted (disabled ones included), oldest first.
    func endpoints(formID: String) async throws -> [EndpointRecord]

    /// One endpoint, or `nil` when unknown or deleted.
    func endpoint(id: String) async throws -> EndpointRecord?

    /// Deletes an endpoint; its deliveries not yet sent become `dead`. Returns `false` when unknown.
    func deleteEndpoint(id: String, audit: AuditNote?) async throws -> Bool

    /// Makes `newSecretCiphertext` the endpoint's secret and keeps the old one valid until
    /// `previousValidUntil`. Returns `nil` when the endpoint is unknown or deleted.
    func rotateEndpointSecret(
        id: String, newSecretCiphertext: [UInt8], previousValidUntil: Date, audit: AuditNote?
    ) async throws -> EndpointRecord?

    /// Disables an endpoint (for example after a 410); its deliveries not yet sent become `dead`.
    /// Throws ``StoreError/notFound(_:)`` when it is unknown or deleted.
    func disableEndpoint(id: String, reason: String) async throws

    // MARK: Delivery queue

    /// Leases up to `limit` due deliveries to `owner` for `lease` seconds, oldest due first.
    ///
    /// A delivery is due when it is `pending` or `failed`, its next attempt time has come, its endpoint
    /// is neither disabled nor deleted, and it is not leased or its lease has expired (a crashed
    /// worker's rows come back this way).
    ///
    /// No rows go to `excludingEndpoints`, and at most `roomByEndpoint[id]` to an endpoint listed there
    /// (the worker's per-endpoint in-flight limit minus what it has in flight), counted within the claim.
    func claimDueDeliveries(
        owner: String, limit: Int, now: Date, lease: TimeInterval, excludingEndpoints: Set<String>, roomByEndpoint: [String: Int]
    ) async throws -> [ClaimedDelivery]

    /// Appends an attempt to a delivery, applies its outcome and releases the lease.
    ///
    /// Throws ``StoreError/leaseLost(_:)`` (after keeping the attempt) when another owner has claimed
    /// the delivery since; its state is then left to that owner.
    func recordAttempt(deliveryID: String, owner: String, attempt: AttemptRecord, outcome: DeliveryOutcome) async throws

    /// Releases every lease held by `owner` (on shutdown), so other workers can claim the rows at once.
    func releaseLeases(owner: String) async throws

    // MARK: Admin views

    /// Deliveries newest first (by created time, then id), filtered by status and form when given,
    /// strictly before `position` (created time in milliseconds since 1970, and id) when given: at
    /// most `limit` of them, without their attempts.
    func deliveries(
        status: [DeliveryStatus]?, formID: String?, before position: (createdAtMilliseconds: Int64, id: String)?, limit: Int
    ) async throws -> [DeliveryRecord]

    /// One delivery with all its attempts, oldest first.
    func delivery(id: String) async throws -> DeliveryRecord?

    /// Queues a delivery again: `pending`, due at `now`, unless it is unknown, its endpoint no longer
    /// receives anything, or an attempt is in flight.
    func redeliver(id: String, now: Date, audit: AuditNote?) async throws -> RedeliveryOutcome

    /// How many deliveries wait to be sent and how long the oldest of them has been waiting.
    func deliveryStats(now: Date) async throws -> (pending: Int, oldestPendingAge: TimeInterval?)
}

extension WebhookStore {
    /// Adds an endpoint without recording it in the audit log.
    public func createEndpoint(_ endpoint: NewEndpoint) async throws -> EndpointRecord {
        try await createEndpoint(endpoint, audit: nil)
    }

    /// Deletes an endpoint without recording it in the audit log.
    public func deleteEndpoint(id: String) async throws -> Bool {
        try await deleteEndpoint(id: id, audit: nil)
    }

    /// Rotates an endpoint's secret without recording it in the audit log.
    public func rotateEndpointSecret(id: String, newSecretCiphertext: [UInt8], previousValidUntil: Date) async throws -> EndpointRecord? {
        try await rotateEndpointSecret(id: id, newSecretCiphertext: newSecretCiphertext, previousValidUntil: previousValidUntil, audit: nil)
    }

    /// Queues a delivery again without recording it in the audit log.
    public func redeliver(id: String, now: Date) async throws -> RedeliveryOutcome {
        try await redeliver(id: id, now: now, audit: nil)
    }

    /// Claims due deliveries to any endpoint.
    public func claimDueDeliveries(owner: String, limit: Int, now: Date, lease: TimeInterval) async throws -> [ClaimedDelivery] {
        try await claimDueDeliveries(owner: owner, limit: limit, now: now, lease: lease, excludingEndpoints: [], roomByEndpoint: [:])
    }

    /// Claims due deliveries, none to `excludingEndpoints`, with no limit per endpoint.
    public func claimDueDeliveries(
        owner: String, limit: Int, now: Date, lease: TimeInterval, excludingEndpoints: Set<String>
    ) async throws -> [ClaimedDelivery] {
        try await claimDueDeliveries(owner: owner, limit: limit, now: now, lease: lease, excludingEndpoints: excludingEndpoints, roomByEndpoint: [:])
    }

    /// A page of deliveries, newest first, filtered by status and form; `limit` is clamped to
    /// 1...1000. `cursor` is a page's `nextCursor`; another string throws ``StoreError/invalidCursor``.
    public func deliveries(status: [DeliveryStatus]?, formID: String?, limit: Int, cursor: String?) async throws -> DeliveryPage {
        let limit = min(max(limit, 1), 1000)
        var position: (createdAtMilliseconds: Int64, id: String)?
        if let cursor {
            guard let decoded = CursorToken.decode(cursor) else { throw StoreError.invalidCursor }
            position = decoded
        }
        // One row more than the page tells whether another page follows.
        let rows = try await deliveries(status: status, formID: formID, before: position, limit: limit + 1)
        guard rows.count > limit else { return DeliveryPage(items: rows, nextCursor: nil) }
        let items = Array(rows.prefix(limit))
        let last = items[items.count - 1]
        return DeliveryPage(
            items: items, nextCursor: CursorToken.encode(milliseconds: last.createdAt.storedMilliseconds, id: last.id))
    }
}
