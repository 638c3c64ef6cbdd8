import Foundation
import Webhooks

/// An in-memory outbox with the leasing rules of `DeliveryQueue`, standing in for the store.
actor MemoryDeliveryQueue: DeliveryQueue {
    struct Row {
        var job: DeliveryJob
        var status = "pending"
        var nextAttemptAt = Date.distantPast
        var leaseOwner: String?
        var leaseUntil: Date?
        var attempts: [DeliveryAttempt] = []
        var outcomes: [DeliveryOutcome] = []
    }

    private var rows: [String: Row] = [:]
    private var order: [String] = []
    private(set) var disabled: [String: String] = [:]
    private(set) var claims = 0
    /// Every id any claim returned, in order (an id may come back once its lease ran out).
    private(set) var claimedIDs: [String] = []

    func add(_ job: DeliveryJob) {
        rows[job.id] = Row(job: job)
        order.append(job.id)
    }

    func row(_ id: String) -> Row? { rows[id] }

    var statuses: [String: String] { rows.mapValues(\.status) }

    var leased: [String] { order.filter { rows[$0]?.leaseOwner != nil } }

    /// Queues a dead delivery again, as the admin's redeliver does.
    func redeliver(_ id: String) {
        rows[id]?.status = "pending"
        rows[id]?.nextAttemptAt = .distantPast
    }

    func claimDue(
        owner: String, limit: Int, now: Date, lease: TimeInterval, excludingEndpoints: Set<String>, roomByEndpoint: [String: Int]
    ) async throws -> [DeliveryJob] {
        claims += 1
        var jobs: [DeliveryJob] = []
        var room = roomByEndpoint
        for id in order where jobs.count < limit {
            guard var row = rows[id], row.status == "pending", row.nextAttemptAt <= now,
                  disabled[row.job.endpointID] == nil, !excludingEndpoints.contains(row.job.endpointID), (row.leaseUntil ?? .distantPast) <= now,
                  room[row.job.endpointID].map({ $0 > 0 }) ?? true else { continue }
            if let left = room[row.job.endpointID] { room[row.job.endpointID] = left - 1 }
            row.leaseOwner = owner
            row.leaseUntil = now.addingTimeInterval(lease)
            row.job.attempt = row.attempts.count + 1
            rows[id] = row
            jobs.append(row.job)
        }
        claimedIDs += jobs.map(\.id)
        return jobs
    }

    func record(_ job: DeliveryJob, attempt: DeliveryAttempt, outcome: DeliveryOutcome) async throws {
        guard var row = rows[job.id] else { return }
        row.attempts.append(attempt)
        row.outcomes.append(outcome)
        row.leaseOwner = nil
        row.leaseUntil = nil
        switch outcome {
        case .succeeded: row.status = "succeeded"
        case .retry(let at):
            row.status = "pending"
            row.nextAttemptAt = at
        case .dead: row.status = "dead"
        case .endpointDisabled: row.status = "failed"
        }
        rows[job.id] = row
    }

    func releaseLeases(owner: String) async throws {
        for id in order where rows[id]?.leaseOwner == owner {
            rows[id]?.leaseOwner = nil
            rows[id]?.leaseUntil = nil
        }
    }

    func disableEndpoint(id: String, reason: String) async throws {
        disabled[id] = reason
    }

    func stats(now: Date = Date()) -> QueueStats {
        let pending = order.compactMap { rows[$0] }.filter { $0.status == "pending" }
        return QueueStats(pending: pending.count, oldestPendingAge: pending.isEmpty ? nil : 0)
    }
}

/// Waits until `condition` holds, polling; fails the test after `limit` (a hang guard, not a timing assertion).
func eventually(_ what: String, limit: Duration = .seconds(30), _ condition: () async -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while !(await condition()) {
        guard ContinuousClock.now < deadline else { throw Timeout(what: what) }
        try await Task.sleep(for: .milliseconds(10))
    }
}

struct Timeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "gave up waiting for \(what)" }
}
