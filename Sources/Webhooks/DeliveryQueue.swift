import Foundation

/// The durable outbox the `DeliveryWorker` drains; the store implements it.
///
/// Rows are leased, not locked: a worker that dies leaves leases that expire, and the rows are
/// claimed again, which is why delivery is at least once.
public protocol DeliveryQueue: Sendable {
    /// Leases up to `limit` pending deliveries due at `now` (next attempt time passed, endpoint
    /// enabled, no unexpired lease) to `owner` until `now + lease`, oldest due first.
    /// Each job's `attempt` is the number of attempts recorded so far plus one.
    ///
    /// No jobs go to `excludingEndpoints`, and at most `roomByEndpoint[id]` to an endpoint listed
    /// there. The worker excludes slow endpoints whose share of in-flight slots is used up, and passes
    /// as room what each endpoint with deliveries in flight may still get under
    /// `maxInFlightPerEndpoint`, so that slow endpoints cannot crowd out fast ones.
    func claimDue(
        owner: String, limit: Int, now: Date, lease: TimeInterval, excludingEndpoints: Set<String>, roomByEndpoint: [String: Int]
    ) async throws -> [DeliveryJob]

    /// Stores an attempt and applies its outcome, clearing the lease: `succeeded` and `dead` are
    /// final, `retry(at:)` keeps the delivery pending until then, `endpointDisabled` ends it as failed.
    func record(_ job: DeliveryJob, attempt: DeliveryAttempt, outcome: DeliveryOutcome) async throws

    /// Clears every lease `owner` holds, so another worker (or this one restarted) picks them up at once.
    func releaseLeases(owner: String) async throws

    /// Marks an endpoint disabled; its pending deliveries are no longer claimed.
    func disableEndpoint(id: String, reason: String) async throws
}

extension DeliveryQueue {
    /// Leases due deliveries to any endpoint, with no limit per endpoint.
    public func claimDue(owner: String, limit: Int, now: Date, lease: TimeInterval) async throws -> [DeliveryJob] {
        try await claimDue(owner: owner, limit: limit, now: now, lease: lease, excludingEndpoints: [], roomByEndpoint: [:])
    }
}

/// The outbox's backlog, for the queue-depth and oldest-pending-age gauges.
public struct QueueStats: Sendable, Hashable {
    /// Deliveries not yet succeeded, dead or failed.
    public var pending: Int
    /// Age of the oldest pending delivery, in seconds; nil when none is pending.
    public var oldestPendingAge: TimeInterval?

    /// Creates stats.
    public init(pending: Int, oldestPendingAge: TimeInterval?) {
        self.pending = pending
        self.oldestPendingAge = oldestPendingAge
    }
}
