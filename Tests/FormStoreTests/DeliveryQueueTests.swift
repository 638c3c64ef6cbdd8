import Foundation
import GRDB
import StoreTestSupport
import Testing

@testable import FormStore

/// What only SQLite's delivery queue does: its wake-ups, the index its claims read and its group
/// commit of attempts. What every store promises of the queue is in StoreConformanceTests.
@Suite struct DeliveryQueueTests {
    private let secret: [UInt8] = [1, 2, 3, 4]

    @Test func aSubmissionWithDeliveriesWakesTheWorkerAndARetriedOneQueuesNothingMore() async throws {
        try await withStore { store, _ in
            try await makeForm(store)
            let wakeups = Flag(false)
            store.onDeliveriesCreated { wakeups.isOn = true }
            _ = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://a.test/", secretCiphertext: secret))

            _ = try await store.insertSubmission(newSubmission(id: "sub_1", idempotencyKey: "k"))
            #expect(wakeups.isOn)
            wakeups.isOn = false
            _ = try await store.insertSubmission(newSubmission(id: "sub_2", idempotencyKey: "k"))
            #expect(!wakeups.isOn)
            let page = try await store.deliveries(status: nil, formID: "signup", limit: 50, cursor: nil)
            #expect(page.items.map(\.submissionID) == ["sub_1"])
        }
    }

    /// Claims read the head of the due index, or each endpoint's own index range, so an excluded
    /// endpoint's backlog is never walked.
    @Test func claimsReadTheDueIndexesWithoutScanning() async throws {
        try await withStore { store, _ in
            func plan(_ sql: String) async throws -> [String] {
                try await store.pool.read { db in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: [0, 40, 0, "[]", 10]).map { $0["detail"] as String }
                }
            }
            let head = try await plan(SQLiteFormStore.claimHeadSQL)
            #expect(head.contains { $0.contains("USING INDEX deliveries_due (next_attempt_at<?)") })
            let perEndpoint = try await plan(SQLiteFormStore.claimPerEndpointSQL)
            #expect(perEndpoint.contains { $0.contains("SEARCH due USING INDEX deliveries_due_by_endpoint (endpoint_id=? AND next_attempt_at<?)") })
            #expect(!(head + perEndpoint).contains { $0.hasPrefix("SCAN d") || $0.hasPrefix("SCAN due") })
        }
    }

    @Test func concurrentAttemptsAreRecordedInOneGroup() async throws {
        try await withStore { store, _ in
            try await makeForm(store)
            _ = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://a.test/", secretCiphertext: secret))
            for index in 0..<31 { _ = try await store.insertSubmission(newSubmission(id: "s\(index)")) }
            let claimed = try await store.claimDueDeliveries(owner: "w", limit: 100, now: Date().addingTimeInterval(1), lease: 30)
            #expect(claimed.count == 31)

            let gate = WriterGate(store)
            let tasks = claimed.map { delivery in
                Task {
                    try await store.recordAttempt(
                        deliveryID: delivery.id, owner: "w",
                        attempt: AttemptRecord(attemptedAt: Date(), statusCode: 200, durationMilliseconds: 12, error: nil, responseExcerpt: nil),
                        outcome: .succeeded)
                }
            }
            try await eventually { store.attemptCommitter.queuedCount + store.attemptCommitter.takenCount == 31 }
            gate.open()
            for task in tasks { try await task.value }
            #expect(store.attemptCommitter.statistics.largestGroup > 1)
            #expect(store.attemptCommitter.statistics.items == 31)
            let succeeded = try await store.deliveries(status: [.succeeded], formID: nil, limit: 100, cursor: nil)
            #expect(succeeded.items.count == 31)
        }
    }
}
