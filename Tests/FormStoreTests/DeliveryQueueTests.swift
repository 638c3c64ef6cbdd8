import Foundation
import GRDB
import StoreTestSupport
import Testing

@testable import FormStore

@Suite struct DeliveryQueueTests {
    private let secret: [UInt8] = [1, 2, 3, 4]

    /// A form with one active endpoint and one submission, so one pending delivery.
    private func oneDelivery(_ store: SQLiteFormStore) async throws -> (EndpointRecord, NewSubmission) {
        try await makeForm(store)
        let endpoint = try await store.createEndpoint(
            NewEndpoint(formID: "signup", url: "https://receiver.test/hook", secretCiphertext: secret))
        let submission = newSubmission(id: "sub_1")
        _ = try await store.insertSubmission(submission)
        return (endpoint, submission)
    }

    private func attempt(_ status: Int?, error: String? = nil) -> AttemptRecord {
        AttemptRecord(attemptedAt: Date(), statusCode: status, durationMilliseconds: 12, error: error, responseExcerpt: "ok")
    }

    @Test func submissionQueuesOneDeliveryPerActiveEndpoint() async throws {
        try await withStore { store, _ in
            try await makeForm(store)
            try await makeForm(store, id: "other")
            let wakeups = Flag(false)
            store.onDeliveriesCreated { wakeups.isOn = true }
            let active = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://a.test/", secretCiphertext: secret))
            let second = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://b.test/", secretCiphertext: secret))
            let disabled = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://c.test/", secretCiphertext: secret))
            let deleted = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://d.test/", secretCiphertext: secret))
            _ = try await store.createEndpoint(NewEndpoint(formID: "other", url: "https://e.test/", secretCiphertext: secret))
            try await store.disableEndpoint(id: disabled.id, reason: "410 Gone")
            #expect(try await store.deleteEndpoint(id: deleted.id))
            await #expect(throws: StoreError.notFound("form missing")) {
                _ = try await store.createEndpoint(NewEndpoint(formID: "missing", url: "https://x.test/", secretCiphertext: [0]))
            }

            let submission = newSubmission(id: "sub_1", idempotencyKey: "k")
            _ = try await store.insertSubmission(submission)
            _ = try await store.insertSubmission(newSubmission(id: "sub_2", idempotencyKey: "k"))
            #expect(wakeups.isOn)

            let page = try await store.deliveries(status: nil, formID: "signup", limit: 50, cursor: nil)
            #expect(page.items.count == 2)
            #expect(Set(page.items.map(\.endpointID)) == [active.id, second.id])
            #expect(page.items.allSatisfy { $0.status == .pending && $0.submissionID == "sub_1" && $0.attemptCount == 0 })
            #expect(page.items.allSatisfy { $0.id.hasPrefix("msg_") && $0.id.count == 28 })

            let claimed = try await store.claimDueDeliveries(owner: "w", limit: 10, now: Date().addingTimeInterval(1), lease: 30)
            #expect(claimed.count == 2)
            #expect(claimed.allSatisfy { $0.payload == submission.webhookPayload && $0.secretCiphertext == secret })
            #expect(Set(claimed.map(\.url)) == ["https://a.test/", "https://b.test/"])
        }
    }

    /// The worker's slow lane: deliveries to excluded endpoints stay for a later claim.
    @Test func claimsSkipExcludedEndpoints() async throws {
        try await withStore { store, _ in
            try await makeForm(store)
            let slow = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://slow.test/", secretCiphertext: secret))
            let fast = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://fast.test/", secretCiphertext: secret))
            _ = try await store.insertSubmission(newSubmission(id: "sub_1"))
            let now = Date().addingTimeInterval(1)
            let claimed = try await store.claimDueDeliveries(owner: "w", limit: 10, now: now, lease: 30, excludingEndpoints: [slow.id])
            #expect(claimed.map(\.endpointID) == [fast.id])
            let rest = try await store.claimDueDeliveries(owner: "w", limit: 10, now: now, lease: 30, excludingEndpoints: [])
            #expect(rest.map(\.endpointID) == [slow.id])
        }
    }

    /// Endpoints a and b on one form, and 30 submissions a second apart, so 60 due deliveries.
    private func twoEndpointsWithThirtySubmissions(_ store: SQLiteFormStore) async throws -> (EndpointRecord, EndpointRecord) {
        try await makeForm(store)
        let a = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://a.test/", secretCiphertext: secret))
        let b = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://b.test/", secretCiphertext: secret))
        let base = Date().addingTimeInterval(-100)
        for index in 0..<30 {
            _ = try await store.insertSubmission(newSubmission(id: "sub_\(index)", receivedAt: base.addingTimeInterval(Double(index))))
        }
        return (a, b)
    }

    /// A claim gives an endpoint listed in `roomByEndpoint` at most that many rows and fills the rest
    /// from other endpoints; a room of 0 excludes the endpoint.
    @Test func claimsKeepToEachEndpointsRoom() async throws {
        try await withStore { store, _ in
            let (a, b) = try await twoEndpointsWithThirtySubmissions(store)
            let now = Date().addingTimeInterval(1)
            let first = try await store.claimDueDeliveries(
                owner: "w", limit: 12, now: now, lease: 30, excludingEndpoints: [], roomByEndpoint: [a.id: 3])
            #expect(first.count == 12)
            #expect(first.filter { $0.endpointID == a.id }.map(\.submissionID) == ["sub_0", "sub_1", "sub_2"])
            let second = try await store.claimDueDeliveries(
                owner: "w", limit: 12, now: now, lease: 30, excludingEndpoints: [], roomByEndpoint: [a.id: 0, b.id: 2])
            #expect(second.count == 2 && second.allSatisfy { $0.endpointID == b.id })
            // Rows left out were not leased: the next claim without rooms takes them, oldest first.
            let rest = try await store.claimDueDeliveries(owner: "w", limit: 100, now: now, lease: 30)
            #expect(rest.count == 60 - 14)
            #expect(rest.first?.endpointID == a.id && rest.first?.submissionID == "sub_3")
        }
    }

    /// Claims take the oldest due rows across endpoints, reading each endpoint's rows through its own
    /// index range, so an excluded endpoint's backlog is never walked.
    @Test func claimsMergeEndpointsOldestFirstWithoutWalkingSkippedBacklogs() async throws {
        try await withStore { store, _ in
            let (a, b) = try await twoEndpointsWithThirtySubmissions(store)
            let now = Date().addingTimeInterval(1)
            let first = try await store.claimDueDeliveries(owner: "w", limit: 10, now: now, lease: 30, excludingEndpoints: [])
            // Both endpoints' deliveries of the five oldest submissions.
            #expect(Set(first.map(\.submissionID)) == Set((0..<5).map { "sub_\($0)" }))
            #expect(first.filter { $0.endpointID == a.id }.count == 5)
            let onlyB = try await store.claimDueDeliveries(owner: "w", limit: 10, now: now, lease: 30, excludingEndpoints: [a.id])
            #expect(onlyB.allSatisfy { $0.endpointID == b.id } && onlyB.map(\.submissionID) == (5..<15).map { "sub_\($0)" })

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

    /// A skipped endpoint's backlog at the head of the due index does not hide the rows behind it.
    @Test func aSkippedBacklogInFrontDoesNotHideOtherEndpoints() async throws {
        try await withStore { store, _ in
            try await makeForm(store)
            try await makeForm(store, id: "other")
            let slow = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://slow.test/", secretCiphertext: secret))
            let fast = try await store.createEndpoint(NewEndpoint(formID: "other", url: "https://fast.test/", secretCiphertext: secret))
            let base = Date().addingTimeInterval(-100)
            for index in 0..<60 {
                _ = try await store.insertSubmission(newSubmission(id: "sub_s\(index)", receivedAt: base.addingTimeInterval(Double(index) / 10)))
            }
            for index in 0..<5 {
                _ = try await store.insertSubmission(newSubmission(id: "sub_f\(index)", formID: "other", receivedAt: base.addingTimeInterval(50 + Double(index))))
            }
            let claimed = try await store.claimDueDeliveries(owner: "w", limit: 10, now: Date(), lease: 30, excludingEndpoints: [slow.id])
            #expect(claimed.map(\.endpointID) == Array(repeating: fast.id, count: 5))
            #expect(claimed.map(\.submissionID) == (0..<5).map { "sub_f\($0)" })
        }
    }

    @Test func anExpiredLeaseIsClaimableByAnotherOwner() async throws {
        try await withStore { store, _ in
            let (endpoint, submission) = try await oneDelivery(store)
            let now = Date().addingTimeInterval(1)
            let first = try await store.claimDueDeliveries(owner: "a", limit: 10, now: now, lease: 30)
            #expect(first.count == 1)
            let delivery = try #require(first.first)
            #expect(delivery.endpointID == endpoint.id && delivery.submissionID == submission.record.id && delivery.attempts == 0)
            #expect(delivery.leaseExpiresAt.storedMilliseconds == now.addingTimeInterval(30).storedMilliseconds)

            #expect(try await store.claimDueDeliveries(owner: "b", limit: 10, now: now.addingTimeInterval(10), lease: 30).isEmpty)
            let second = try await store.claimDueDeliveries(owner: "b", limit: 10, now: now.addingTimeInterval(31), lease: 30)
            #expect(second.map(\.id) == [delivery.id])

            await #expect(throws: StoreError.self) {
                try await store.recordAttempt(deliveryID: delivery.id, owner: "a", attempt: attempt(200), outcome: .succeeded)
            }
            let afterLate = try #require(try await store.delivery(id: delivery.id))
            #expect(afterLate.status == .pending && afterLate.attempts.count == 1)

            try await store.recordAttempt(deliveryID: delivery.id, owner: "b", attempt: attempt(204), outcome: .succeeded)
            let done = try #require(try await store.delivery(id: delivery.id))
            #expect(done.status == .succeeded && done.attemptCount == 2 && done.lastStatusCode == 204)
            #expect(done.attempts.map(\.statusCode) == [200, 204])
            #expect(done.attempts.allSatisfy { $0.durationMilliseconds == 12 && $0.responseExcerpt == "ok" })
            #expect(try await store.claimDueDeliveries(owner: "c", limit: 10, now: now.addingTimeInterval(3600), lease: 30).isEmpty)
        }
    }

    @Test func retryWaitsForItsTimeAndDeadStaysUntilRedelivered() async throws {
        try await withStore { store, _ in
            _ = try await oneDelivery(store)
            let now = Date().addingTimeInterval(1)
            let id = try #require(try await store.claimDueDeliveries(owner: "w", limit: 1, now: now, lease: 30).first?.id)

            try await store.recordAttempt(
                deliveryID: id, owner: "w", attempt: attempt(500, error: "HTTP 500"), outcome: .retry(at: now.addingTimeInterval(60)))
            let failed = try #require(try await store.delivery(id: id))
            #expect(failed.status == .failed && failed.lastStatusCode == 500 && failed.lastError == "HTTP 500")
            #expect(failed.nextAttemptAt.storedMilliseconds == now.addingTimeInterval(60).storedMilliseconds)
            #expect(try await store.deliveryStats(now: now).pending == 1)
            #expect(try await store.claimDueDeliveries(owner: "w", limit: 1, now: now.addingTimeInterval(59), lease: 30).isEmpty)
            let retried = try await store.claimDueDeliveries(owner: "w", limit: 1, now: now.addingTimeInterval(61), lease: 30)
            #expect(retried.map(\.id) == [id] && retried.first?.attempts == 1)

            try await store.recordAttempt(deliveryID: id, owner: "w", attempt: attempt(nil, error: "timeout"), outcome: .dead)
            let dead = try #require(try await store.delivery(id: id))
            #expect(dead.status == .dead && dead.lastStatusCode == nil && dead.lastError == "timeout")
            #expect(try await store.deliveryStats(now: now).pending == 0)
            #expect(try await store.claimDueDeliveries(owner: "w", limit: 1, now: now.addingTimeInterval(9999), lease: 30).isEmpty)

            #expect(try await store.redeliver(id: id, now: now.addingTimeInterval(100)) == .queued)
            #expect(try await store.redeliver(id: "msg_unknown", now: now) == .unknownDelivery)
            #expect(try await store.delivery(id: id)?.status == .pending)
            let again = try await store.claimDueDeliveries(owner: "w", limit: 1, now: now.addingTimeInterval(100), lease: 30)
            #expect(again.map(\.id) == [id])
            // While that attempt runs under its lease, a redeliver would be overwritten by its result:
            // it is refused and changes nothing. Once the lease has run out, it queues again.
            let leased = try #require(try await store.delivery(id: id))
            #expect(try await store.redeliver(id: id, now: now.addingTimeInterval(101))
                    == .inFlight(leaseExpiresAt: Date(storedMilliseconds: now.addingTimeInterval(130).storedMilliseconds)))
            #expect(try await store.delivery(id: id)?.nextAttemptAt == leased.nextAttemptAt)
            #expect(try await store.redeliver(id: id, now: now.addingTimeInterval(131)) == .queued)
            try await store.recordAttempt(deliveryID: id, owner: "w", attempt: attempt(200), outcome: .succeeded)
            let delivered = try #require(try await store.delivery(id: id))
            #expect(delivered.status == .succeeded && delivered.attempts.count == 3 && delivered.lastError == nil)
        }
    }

    @Test func releasedLeasesAreClaimableAtOnce() async throws {
        try await withStore { store, _ in
            _ = try await oneDelivery(store)
            let now = Date().addingTimeInterval(1)
            #expect(try await store.claimDueDeliveries(owner: "old", limit: 5, now: now, lease: 300).count == 1)
            try await store.releaseLeases(owner: "old")
            let stats = try await store.deliveryStats(now: now)
            #expect(stats.pending == 1)
            let later = Date().addingTimeInterval(1)
            #expect(try await store.claimDueDeliveries(owner: "new", limit: 5, now: later, lease: 300).count == 1)
        }
    }

    @Test func rotationKeepsThePreviousSecretUntilItExpires() async throws {
        try await withStore { store, _ in
            let (endpoint, _) = try await oneDelivery(store)
            let now = Date().addingTimeInterval(1)
            let rotated = try #require(try await store.rotateEndpointSecret(
                id: endpoint.id, newSecretCiphertext: [9, 9], previousValidUntil: now.addingTimeInterval(3600)))
            #expect(rotated.secretCiphertext == [9, 9] && rotated.previousSecretCiphertext == secret)
            #expect(try await store.endpoint(id: endpoint.id) == rotated)
            #expect(try await store.rotateEndpointSecret(id: "ep_unknown", newSecretCiphertext: [1], previousValidUntil: now) == nil)

            let during = try #require(try await store.claimDueDeliveries(owner: "w", limit: 1, now: now, lease: 1).first)
            #expect(during.secretCiphertext == [9, 9] && during.previousSecretCiphertext == secret)
            let after = try #require(
                try await store.claimDueDeliveries(owner: "w", limit: 1, now: now.addingTimeInterval(7200), lease: 1).first)
            #expect(after.secretCiphertext == [9, 9] && after.previousSecretCiphertext == nil && after.previousSecretExpiresAt == nil)
        }
    }

    @Test func disablingOrDeletingAnEndpointEndsItsOpenDeliveries() async throws {
        try await withStore { store, _ in
            let (endpoint, _) = try await oneDelivery(store)
            try await store.disableEndpoint(id: endpoint.id, reason: "410 Gone")
            let disabled = try #require(try await store.endpoint(id: endpoint.id))
            #expect(disabled.disabledAt != nil && disabled.disabledReason == "410 Gone")
            let page = try await store.deliveries(status: [.dead], formID: nil, limit: 10, cursor: nil)
            #expect(page.items.count == 1 && page.items.first?.lastError == "endpoint disabled: 410 Gone")
            let id = try #require(page.items.first?.id)
            #expect(try await store.redeliver(id: id, now: Date()) == .endpointDisabled(endpointID: endpoint.id))
            #expect(try await store.delivery(id: id)?.status == .dead)
            _ = try await store.insertSubmission(newSubmission(id: "sub_2"))
            #expect(try await store.deliveryStats(now: Date()).pending == 0)

            #expect(try await store.endpoints(formID: "signup").map(\.id) == [endpoint.id])
            #expect(try await store.deleteEndpoint(id: endpoint.id))
            #expect(try await store.redeliver(id: id, now: Date()) == .endpointDeleted(endpointID: endpoint.id))
            #expect(try await store.deleteEndpoint(id: endpoint.id) == false)
            #expect(try await store.endpoint(id: endpoint.id) == nil)
            #expect(try await store.endpoints(formID: "signup").isEmpty)
            await #expect(throws: StoreError.notFound("endpoint \(endpoint.id)")) {
                try await store.disableEndpoint(id: endpoint.id, reason: "again")
            }
        }
    }

    @Test func deliveryListFiltersAndPages() async throws {
        try await withStore { store, _ in
            try await makeForm(store)
            try await makeForm(store, id: "other")
            _ = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://a.test/", secretCiphertext: secret))
            _ = try await store.createEndpoint(NewEndpoint(formID: "other", url: "https://b.test/", secretCiphertext: secret))
            for index in 0..<25 {
                _ = try await store.insertSubmission(newSubmission(id: "s\(index)"))
                _ = try await store.insertSubmission(newSubmission(id: "o\(index)", formID: "other"))
            }
            let now = Date().addingTimeInterval(1)
            for claimed in try await store.claimDueDeliveries(owner: "w", limit: 5, now: now, lease: 30) {
                try await store.recordAttempt(deliveryID: claimed.id, owner: "w", attempt: attempt(200), outcome: .succeeded)
            }

            var seen: [DeliveryRecord] = []
            var cursor: String?
            repeat {
                let page = try await store.deliveries(status: [.pending, .failed], formID: "signup", limit: 4, cursor: cursor)
                seen += page.items
                cursor = page.nextCursor
            } while cursor != nil
            let succeeded = try await store.deliveries(status: [.succeeded], formID: nil, limit: 100, cursor: nil).items
            #expect(succeeded.count == 5)
            let signupSucceeded = succeeded.filter { $0.formID == "signup" }.count
            #expect(seen.count == 25 - signupSucceeded)
            #expect(Set(seen.map(\.id)).count == seen.count)
            #expect(seen.allSatisfy { $0.formID == "signup" && $0.status == .pending && $0.endpointURL == "https://a.test/" })
            let keys = seen.map { ($0.createdAt.storedMilliseconds, $0.id) }
            #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 > $1 })
            #expect(try await store.deliveries(status: nil, formID: nil, limit: 1000, cursor: nil).items.count == 50)

            await #expect(throws: StoreError.invalidCursor) {
                _ = try await store.deliveries(status: nil, formID: nil, limit: 5, cursor: "not a cursor")
            }
            let stats = try await store.deliveryStats(now: now.addingTimeInterval(10))
            #expect(stats.pending == 45)
            #expect((stats.oldestPendingAge ?? 0) >= 10)
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
                Task { try await store.recordAttempt(deliveryID: delivery.id, owner: "w", attempt: attempt(200), outcome: .succeeded) }
            }
            try await eventually { store.attemptCommitter.queuedCount + store.attemptCommitter.takenCount == 31 }
            gate.open()
            for task in tasks { try await task.value }
            #expect(store.attemptCommitter.statistics.largestGroup > 1)
            #expect(store.attemptCommitter.statistics.items == 31)
            let succeeded = try await store.deliveries(status: [.succeeded], formID: nil, limit: 100, cursor: nil)
            #expect(succeeded.items.count == 31)
            await #expect(throws: StoreError.notFound("delivery msg_unknown")) {
                try await store.recordAttempt(deliveryID: "msg_unknown", owner: "w", attempt: attempt(200), outcome: .succeeded)
            }
        }
    }

    @Test func anAttemptFinishingAfterItsEndpointWasDisabledDoesNotReopenIt() async throws {
        try await withStore { store, _ in
            let (endpoint, _) = try await oneDelivery(store)
            _ = try await store.insertSubmission(newSubmission(id: "sub_2"))
            let claimed = try await store.claimDueDeliveries(owner: "w", limit: 5, now: Date().addingTimeInterval(1), lease: 30)
            #expect(claimed.count == 2)
            try await store.disableEndpoint(id: endpoint.id, reason: "410 Gone")

            try await store.recordAttempt(
                deliveryID: claimed[0].id, owner: "w", attempt: attempt(500), outcome: .retry(at: Date()))
            try await store.recordAttempt(deliveryID: claimed[1].id, owner: "w", attempt: attempt(200), outcome: .succeeded)
            let first = try #require(try await store.delivery(id: claimed[0].id))
            #expect(first.status == .dead && first.attempts.count == 1 && first.attemptCount == 1)
            #expect(try await store.delivery(id: claimed[1].id)?.status == .succeeded)
            #expect(try await store.deliveryStats(now: Date()).pending == 0)
        }
    }
}
