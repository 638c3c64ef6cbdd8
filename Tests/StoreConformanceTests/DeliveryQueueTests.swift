import FormStore
import Foundation
import StoreTestSupport
import Testing

/// What ``WebhookStore`` promises of the delivery queue and its admin views, checked on every store.
/// Deliveries are made as the server makes them: by storing submissions of a form with endpoints.
@Suite struct DeliveryQueueTests {
    private let secret: [UInt8] = [1, 2, 3, 4]

    private func attempt(_ status: Int?, error: String? = nil) -> AttemptRecord {
        AttemptRecord(attemptedAt: Date(), statusCode: status, durationMilliseconds: 12, error: error, responseExcerpt: "ok")
    }

    /// A form "signup" with one endpoint and one submission "sub_1", so one pending delivery.
    private func oneDelivery(_ store: any GroupCommittingStore) async throws -> EndpointRecord {
        try await makeForm(store, id: "signup")
        let endpoint = try await store.createEndpoint(
            NewEndpoint(formID: "signup", url: "https://receiver.test/hook", secretCiphertext: secret))
        try await submit(store, ["sub_1"])
        return endpoint
    }

    /// Endpoints a and b on form "signup", and 30 submissions, so 60 due deliveries.
    private func twoEndpointsWithThirtySubmissions(_ store: any GroupCommittingStore) async throws -> (EndpointRecord, EndpointRecord) {
        try await makeForm(store, id: "signup")
        let a = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://a.test/", secretCiphertext: secret))
        let b = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://b.test/", secretCiphertext: secret))
        try await submit(store, (0..<30).map { "sub_\($0)" })
        return (a, b)
    }

    @Test(arguments: StoreKind.allCases)
    func submissionQueuesOneDeliveryPerActiveEndpoint(_ kind: StoreKind) async throws {
        try await kind.withWebhookStore { store in
            try await makeForm(store, id: "signup")
            try await makeForm(store, id: "other")
            let active = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://a.test/", secretCiphertext: secret))
            let second = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://b.test/", secretCiphertext: secret))
            let disabled = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://c.test/", secretCiphertext: secret))
            let deleted = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://d.test/", secretCiphertext: secret))
            _ = try await store.createEndpoint(NewEndpoint(formID: "other", url: "https://e.test/", secretCiphertext: secret))
            try await store.disableEndpoint(id: disabled.id, reason: "410 Gone")
            #expect(try await store.deleteEndpoint(id: deleted.id))
            try await submit(store, ["sub_1"])

            let page = try await store.deliveries(status: nil, formID: "signup", limit: 50, cursor: nil)
            #expect(Set(page.items.map(\.endpointID)) == [active.id, second.id] && page.items.count == 2)
            #expect(page.items.allSatisfy { $0.status == .pending && $0.submissionID == "sub_1" && $0.attemptCount == 0 })
            #expect(page.items.allSatisfy { $0.id.hasPrefix("msg_") && $0.id.count == 28 })

            let claimed = try await store.claimDueDeliveries(owner: "w", limit: 10, now: Date().addingTimeInterval(1), lease: 30)
            #expect(claimed.count == 2)
            #expect(claimed.allSatisfy { $0.payload == newSubmission(id: "sub_1").webhookPayload && $0.secretCiphertext == secret && $0.formID == "signup" })
            #expect(Set(claimed.map(\.url)) == ["https://a.test/", "https://b.test/"])
        }
    }

    /// The worker's slow lane: deliveries to excluded endpoints stay for a later claim.
    @Test(arguments: StoreKind.allCases)
    func claimsSkipExcludedEndpoints(_ kind: StoreKind) async throws {
        try await kind.withWebhookStore { store in
            try await makeForm(store, id: "signup")
            let slow = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://slow.test/", secretCiphertext: secret))
            let fast = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://fast.test/", secretCiphertext: secret))
            try await submit(store, ["sub_1"])
            let now = Date().addingTimeInterval(1)
            let claimed = try await store.claimDueDeliveries(owner: "w", limit: 10, now: now, lease: 30, excludingEndpoints: [slow.id])
            #expect(claimed.map(\.endpointID) == [fast.id])
            let rest = try await store.claimDueDeliveries(owner: "w", limit: 10, now: now, lease: 30, excludingEndpoints: [])
            #expect(rest.map(\.endpointID) == [slow.id])
        }
    }

    /// A claim gives an endpoint listed in `roomByEndpoint` at most that many rows and fills the rest
    /// from other endpoints; a room of 0 excludes the endpoint.
    @Test(arguments: StoreKind.allCases)
    func claimsKeepToEachEndpointsRoom(_ kind: StoreKind) async throws {
        try await kind.withWebhookStore { store in
            let (a, b) = try await twoEndpointsWithThirtySubmissions(store)
            let now = Date().addingTimeInterval(1)
            let first = try await store.claimDueDeliveries(
                owner: "w", limit: 12, now: now, lease: 30, excludingEndpoints: [], roomByEndpoint: [a.id: 3])
            #expect(first.count == 12)
            #expect(first.filter { $0.endpointID == a.id }.map(\.submissionID) == ["sub_0", "sub_1", "sub_2"])
            #expect(first.filter { $0.endpointID == b.id }.map(\.submissionID) == (0..<9).map { "sub_\($0)" })
            let second = try await store.claimDueDeliveries(
                owner: "w", limit: 12, now: now, lease: 30, excludingEndpoints: [], roomByEndpoint: [a.id: 0, b.id: 2])
            #expect(second.map(\.submissionID) == ["sub_9", "sub_10"] && second.allSatisfy { $0.endpointID == b.id })
            // Rows left out were not leased: the next claim without rooms takes them, oldest first.
            let rest = try await store.claimDueDeliveries(owner: "w", limit: 100, now: now, lease: 30)
            #expect(rest.count == 60 - 14)
            #expect(rest.first?.endpointID == a.id && rest.first?.submissionID == "sub_3")
        }
    }

    /// Claims take the oldest due rows across endpoints, and an excluded endpoint's rows stay queued.
    @Test(arguments: StoreKind.allCases)
    func claimsMergeEndpointsOldestFirst(_ kind: StoreKind) async throws {
        try await kind.withWebhookStore { store in
            let (a, b) = try await twoEndpointsWithThirtySubmissions(store)
            let now = Date().addingTimeInterval(1)
            let first = try await store.claimDueDeliveries(owner: "w", limit: 10, now: now, lease: 30, excludingEndpoints: [])
            // Both endpoints' deliveries of the five oldest submissions.
            #expect(first.map(\.submissionID) == (0..<5).flatMap { ["sub_\($0)", "sub_\($0)"] })
            #expect(first.filter { $0.endpointID == a.id }.count == 5)
            let onlyB = try await store.claimDueDeliveries(owner: "w", limit: 10, now: now, lease: 30, excludingEndpoints: [a.id])
            #expect(onlyB.allSatisfy { $0.endpointID == b.id } && onlyB.map(\.submissionID) == (5..<15).map { "sub_\($0)" })
            let onlyA = try await store.claimDueDeliveries(owner: "w", limit: 100, now: now, lease: 30, excludingEndpoints: [b.id])
            #expect(onlyA.allSatisfy { $0.endpointID == a.id } && onlyA.map(\.submissionID) == (5..<30).map { "sub_\($0)" })
        }
    }

    /// A skipped endpoint's backlog in front of the queue does not hide the rows behind it.
    @Test(arguments: StoreKind.allCases)
    func aSkippedBacklogInFrontDoesNotHideOtherEndpoints(_ kind: StoreKind) async throws {
        try await kind.withWebhookStore { store in
            try await makeForm(store, id: "signup")
            try await makeForm(store, id: "other")
            let slow = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://slow.test/", secretCiphertext: secret))
            let fast = try await store.createEndpoint(NewEndpoint(formID: "other", url: "https://fast.test/", secretCiphertext: secret))
            try await submit(store, (0..<60).map { "sub_s\($0)" })
            try await submit(store, (0..<5).map { "sub_f\($0)" }, formID: "other")
            let claimed = try await store.claimDueDeliveries(
                owner: "w", limit: 10, now: Date().addingTimeInterval(1), lease: 30, excludingEndpoints: [slow.id])
            #expect(claimed.map(\.endpointID) == Array(repeating: fast.id, count: 5))
            #expect(claimed.map(\.submissionID) == (0..<5).map { "sub_f\($0)" })
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anExpiredLeaseIsClaimableByAnotherOwnerAndTheLateAttemptIsKept(_ kind: StoreKind) async throws {
        try await kind.withWebhookStore { store in
            let endpoint = try await oneDelivery(store)
            let now = Date().addingTimeInterval(1)
            let delivery = try #require(try await store.claimDueDeliveries(owner: "a", limit: 10, now: now, lease: 30).first)
            #expect(delivery.endpointID == endpoint.id && delivery.submissionID == "sub_1" && delivery.attempts == 0)
            #expect(delivery.leaseExpiresAt.storedMilliseconds == now.addingTimeInterval(30).storedMilliseconds)
            #expect(try await store.delivery(id: delivery.id)?.nextAttemptAt == delivery.leaseExpiresAt)

            #expect(try await store.claimDueDeliveries(owner: "b", limit: 10, now: now.addingTimeInterval(29.9), lease: 30).isEmpty)
            let second = try await store.claimDueDeliveries(owner: "b", limit: 10, now: now.addingTimeInterval(30), lease: 30)
            #expect(second.map(\.id) == [delivery.id])

            await #expect(throws: StoreError.leaseLost("delivery \(delivery.id) is leased to b")) {
                try await store.recordAttempt(deliveryID: delivery.id, owner: "a", attempt: attempt(200), outcome: .succeeded)
            }
            let afterLate = try #require(try await store.delivery(id: delivery.id))
            #expect(afterLate.status == .pending && afterLate.attempts.count == 1 && afterLate.attemptCount == 1)
            #expect(afterLate.lastStatusCode == nil)
            // B still holds the lease: the row is not due for anyone else.
            #expect(try await store.claimDueDeliveries(owner: "c", limit: 10, now: now.addingTimeInterval(31), lease: 30).isEmpty)

            try await store.recordAttempt(deliveryID: delivery.id, owner: "b", attempt: attempt(204), outcome: .succeeded)
            let done = try #require(try await store.delivery(id: delivery.id))
            #expect(done.status == .succeeded && done.attemptCount == 2 && done.lastStatusCode == 204)
            #expect(done.attempts.map(\.statusCode) == [200, 204])
            #expect(done.attempts.allSatisfy { $0.durationMilliseconds == 12 && $0.responseExcerpt == "ok" })
            #expect(try await store.claimDueDeliveries(owner: "c", limit: 10, now: now.addingTimeInterval(3600), lease: 30).isEmpty)
            await #expect(throws: StoreError.notFound("delivery msg_unknown")) {
                try await store.recordAttempt(deliveryID: "msg_unknown", owner: "w", attempt: attempt(200), outcome: .succeeded)
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func retryWaitsForItsTimeAndDeadStaysUntilRedelivered(_ kind: StoreKind) async throws {
        try await kind.withWebhookStore { store in
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

    @Test(arguments: StoreKind.allCases)
    func releasedLeasesAreClaimableAtOnceAndTheirAttemptsStillCount(_ kind: StoreKind) async throws {
        try await kind.withWebhookStore { store in
            _ = try await oneDelivery(store)
            try await submit(store, ["sub_2"])
            let now = Date().addingTimeInterval(1)
            let claimed = try await store.claimDueDeliveries(owner: "old", limit: 5, now: now, lease: 300)
            #expect(claimed.count == 2)
            try await store.releaseLeases(owner: "someone else")
            #expect(try await store.claimDueDeliveries(owner: "new", limit: 5, now: Date().addingTimeInterval(1), lease: 300).isEmpty)
            try await store.releaseLeases(owner: "old")
            #expect(try await store.deliveryStats(now: now).pending == 2)
            let reclaimed = try await store.claimDueDeliveries(owner: "new", limit: 1, now: Date().addingTimeInterval(1), lease: 300)
            #expect(reclaimed.count == 1)

            // The old owner's attempt on the row nobody holds applies; on the row "new" holds, it does not.
            let free = try #require(claimed.first { $0.id != reclaimed.first?.id })
            try await store.recordAttempt(deliveryID: free.id, owner: "old", attempt: attempt(200), outcome: .succeeded)
            #expect(try await store.delivery(id: free.id)?.status == .succeeded)
            await #expect(throws: StoreError.leaseLost("delivery \(reclaimed[0].id) is leased to new")) {
                try await store.recordAttempt(deliveryID: reclaimed[0].id, owner: "old", attempt: attempt(200), outcome: .succeeded)
            }
            #expect(try await store.delivery(id: reclaimed[0].id)?.status == .pending)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aClaimCarriesThePreviousSecretUntilItExpires(_ kind: StoreKind) async throws {
        try await kind.withWebhookStore { store in
            let endpoint = try await oneDelivery(store)
            let now = Date().addingTimeInterval(1)
            _ = try await store.rotateEndpointSecret(
                id: endpoint.id, newSecretCiphertext: [9, 9], previousValidUntil: now.addingTimeInterval(3600))
            let during = try #require(try await store.claimDueDeliveries(owner: "w", limit: 1, now: now, lease: 1).first)
            #expect(during.secretCiphertext == [9, 9] && during.previousSecretCiphertext == secret)
            #expect(during.previousSecretExpiresAt?.storedMilliseconds == now.addingTimeInterval(3600).storedMilliseconds)
            let after = try #require(
                try await store.claimDueDeliveries(owner: "w", limit: 1, now: now.addingTimeInterval(7200), lease: 1).first)
            #expect(after.secretCiphertext == [9, 9] && after.previousSecretCiphertext == nil && after.previousSecretExpiresAt == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func disablingOrDeletingAnEndpointEndsItsOpenDeliveries(_ kind: StoreKind) async throws {
        try await kind.withWebhookStore { store in
            let endpoint = try await oneDelivery(store)
            let kept = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://kept.test/", secretCiphertext: secret))
            try await submit(store, ["sub_2"])
            try await store.disableEndpoint(id: endpoint.id, reason: "410 Gone")
            let dead = try await store.deliveries(status: [.dead], formID: nil, limit: 10, cursor: nil).items
            #expect(dead.count == 2 && dead.allSatisfy { $0.lastError == "endpoint disabled: 410 Gone" && $0.endpointID == endpoint.id })
            let id = try #require(dead.first?.id)
            #expect(try await store.redeliver(id: id, now: Date()) == .endpointDisabled(endpointID: endpoint.id))
            #expect(try await store.delivery(id: id)?.status == .dead)
            #expect(try await store.deliveryStats(now: Date()).pending == 1)

            try await submit(store, ["sub_3"])
            #expect(try await store.deleteEndpoint(id: kept.id))
            #expect(try await store.redeliver(id: id, now: Date()) == .endpointDisabled(endpointID: endpoint.id))
            let ended = try await store.deliveries(status: [.dead], formID: "signup", limit: 10, cursor: nil).items
                .filter { $0.endpointID == kept.id }
            #expect(ended.count == 2 && ended.allSatisfy { $0.lastError == "endpoint deleted" })
            #expect(try await store.redeliver(id: ended[0].id, now: Date()) == .endpointDeleted(endpointID: kept.id))
            #expect(try await store.deliveryStats(now: Date()) == (pending: 0, oldestPendingAge: nil))
            #expect(try await store.claimDueDeliveries(owner: "w", limit: 10, now: Date().addingTimeInterval(1), lease: 30).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anAttemptFinishingAfterItsEndpointWasDisabledDoesNotReopenIt(_ kind: StoreKind) async throws {
        try await kind.withWebhookStore { store in
            let endpoint = try await oneDelivery(store)
            try await submit(store, ["sub_2"])
            let claimed = try await store.claimDueDeliveries(owner: "w", limit: 5, now: Date().addingTimeInterval(1), lease: 30)
            #expect(claimed.count == 2)
            try await store.disableEndpoint(id: endpoint.id, reason: "410 Gone")

            try await store.recordAttempt(deliveryID: claimed[0].id, owner: "w", attempt: attempt(500), outcome: .retry(at: Date()))
            try await store.recordAttempt(deliveryID: claimed[1].id, owner: "w", attempt: attempt(200), outcome: .succeeded)
            let first = try #require(try await store.delivery(id: claimed[0].id))
            #expect(first.status == .dead && first.attempts.count == 1 && first.attemptCount == 1)
            #expect(try await store.delivery(id: claimed[1].id)?.status == .succeeded)
            #expect(try await store.deliveryStats(now: Date()).pending == 0)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deliveryListFiltersAndPages(_ kind: StoreKind) async throws {
        try await kind.withWebhookStore { store in
            try await makeForm(store, id: "signup")
            try await makeForm(store, id: "other")
            _ = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://a.test/", secretCiphertext: secret))
            _ = try await store.createEndpoint(NewEndpoint(formID: "other", url: "https://b.test/", secretCiphertext: secret))
            for index in 0..<25 {
                try await submit(store, ["s\(index)"])
                try await submit(store, ["o\(index)"], formID: "other")
            }
            let now = Date().addingTimeInterval(1)
            for claimed in try await store.claimDueDeliveries(owner: "w", limit: 5, now: now, lease: 30) {
                try await store.recordAttempt(deliveryID: claimed.id, owner: "w", attempt: attempt(200), outcome: .succeeded)
            }

            var seen: [DeliveryRecord] = []
            var cursor: String?
            repeat {
                let page = try await store.deliveries(status: [.pending, .failed], formID: "signup", limit: 4, cursor: cursor)
                #expect(page.items.count == 4 || page.nextCursor == nil)
                seen += page.items
                cursor = page.nextCursor
            } while cursor != nil
            let succeeded = try await store.deliveries(status: [.succeeded], formID: nil, limit: 100, cursor: nil).items
            #expect(succeeded.count == 5 && succeeded.allSatisfy { $0.attemptCount == 1 && $0.lastStatusCode == 200 })
            #expect(seen.count == 25 - succeeded.filter { $0.formID == "signup" }.count)
            #expect(Set(seen.map(\.id)).count == seen.count)
            #expect(seen.allSatisfy { $0.formID == "signup" && $0.status == .pending && $0.endpointURL == "https://a.test/" })
            let keys = seen.map { ($0.createdAt.storedMilliseconds, $0.id) }
            #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 > $1 })
            #expect(try await store.deliveries(status: nil, formID: nil, limit: 1000, cursor: nil).items.count == 50)
            #expect(try await store.deliveries(status: [], formID: "other", limit: 1000, cursor: nil).items.count == 25)
            #expect(try await store.deliveries(status: [.dead], formID: nil, limit: 1000, cursor: nil).items.isEmpty)

            await #expect(throws: StoreError.invalidCursor) {
                _ = try await store.deliveries(status: nil, formID: nil, limit: 5, cursor: "not a cursor")
            }
            let stats = try await store.deliveryStats(now: now.addingTimeInterval(10))
            #expect(stats.pending == 45)
            #expect((stats.oldestPendingAge ?? 0) >= 10)
        }
    }
}


/// Stores submissions `ids` of a form in turn, a few milliseconds apart: deliveries are due in the
/// order they were made, and rows made in the same millisecond have no order between them.
private func submit(_ store: any GroupCommittingStore, _ ids: [String], formID: String = "signup") async throws {
    for id in ids {
        #expect(try await store.insertSubmission(newSubmission(id: id, formID: formID)) == .inserted)
        try await Task.sleep(for: .milliseconds(2))
    }
}
