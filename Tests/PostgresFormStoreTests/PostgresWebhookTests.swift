import FormStore
import Foundation
import PostgresFormStore
import StoreTestSupport
import Testing

/// Webhook endpoints and deliveries with several nodes on one database.
@Suite struct PostgresWebhookTests {
    /// Two stores on one fresh database, as two nodes.
    private func withTwoNodes<T>(_ body: (PostgresFormStore, PostgresFormStore) async throws -> T) async throws -> T {
        let settings = try PostgresTestCluster.shared().freshDatabase()
        let first = try await PostgresFormStore(settings: settings)
        defer { first.close() }
        let second = try await PostgresFormStore(settings: settings)
        defer { second.close() }
        return try await body(first, second)
    }

    @Test func nodesCreatingEndpointsAtOnceKeepToTheLimit() async throws {
        try await withTwoNodes { first, second in
            _ = try await first.saveFormVersion(formID: "f", definition: "{}", title: "F", contentHash: "h")
            let outcomes = await withTaskGroup(of: Result<EndpointRecord, StoreError>.self) { group in
                for index in 0..<12 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask {
                        do {
                            return .success(try await store.createEndpoint(NewEndpoint(
                                formID: "f", url: "https://\(index).test/", secretCiphertext: [1], maxPerForm: 3)))
                        } catch {
                            return .failure(error as? StoreError ?? .unavailable("\(error)"))
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { (try? $0.get()) != nil }.count == 3)
            #expect(outcomes.filter { $0 == .failure(.limitReached("form f has 3 endpoints")) }.count == 9)
            #expect(try await second.endpoints(formID: "f").count == 3)
        }
    }

    @Test func nodesClaimingAtOnceNeverGetTheSameDelivery() async throws {
        try await withTwoNodes { first, second in
            try await queueDeliveries(first, count: 200)
            let now = Date().addingTimeInterval(1)
            let claims = try await withThrowingTaskGroup(of: [String].self) { group in
                for worker in 0..<8 {
                    let store = worker.isMultiple(of: 2) ? first : second
                    group.addTask {
                        var ids: [String] = []
                        while true {
                            let claimed = try await store.claimDueDeliveries(owner: "node-\(worker)", limit: 7, now: now, lease: 60)
                            if claimed.isEmpty { return ids }
                            ids += claimed.map(\.id)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let ids = claims.flatMap { $0 }
            #expect(ids.count == 200 && Set(ids).count == 200)
            // Both nodes took part: neither waited for the other's claims to end.
            #expect(claims.filter { !$0.isEmpty }.count > 1)
        }
    }

    @Test func rowsLeasedByAStoppedNodeAreClaimedByAnotherOnceTheLeaseExpires() async throws {
        let settings = try PostgresTestCluster.shared().freshDatabase()
        let stopped = try await PostgresFormStore(settings: settings)
        let other = try await PostgresFormStore(settings: settings)
        defer { other.close() }
        try await queueDeliveries(stopped, count: 3)
        let now = Date().addingTimeInterval(1)
        let leased = try await stopped.claimDueDeliveries(owner: "node-1", limit: 10, now: now, lease: 60)
        #expect(leased.count == 3)
        stopped.close()

        #expect(try await other.claimDueDeliveries(owner: "node-2", limit: 10, now: now.addingTimeInterval(59.999), lease: 60).isEmpty)
        let taken = try await other.claimDueDeliveries(owner: "node-2", limit: 10, now: now.addingTimeInterval(60), lease: 60)
        #expect(Set(taken.map(\.id)) == Set(leased.map(\.id)) && taken.count == 3)
        #expect(taken.allSatisfy { $0.attempts == 0 && $0.leaseExpiresAt == Date(storedMilliseconds: now.addingTimeInterval(120).storedMilliseconds) })
    }

    /// A form "signup" with one endpoint and `count` submissions, so `count` pending deliveries.
    private func queueDeliveries(_ store: PostgresFormStore, count: Int) async throws {
        try await makeForm(store)
        _ = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://a.test/", secretCiphertext: [1]))
        for index in 0..<count {
            #expect(try await store.insertSubmission(newSubmission(id: "sub_\(index)")) == .inserted)
        }
    }
}
