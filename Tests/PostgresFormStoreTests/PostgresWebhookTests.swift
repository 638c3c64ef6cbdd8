import FormStore
import Foundation
import PostgresNIO
import StoreTestSupport
import Testing

@testable import PostgresFormStore

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

    /// Half the workers exclude an endpoint, so both claim statements run at once.
    @Test func nodesClaimingAtOnceNeverGetTheSameDelivery() async throws {
        try await withTwoNodes { first, second in
            let endpoints = try await queueDeliveries(first, count: 100, endpoints: 2)
            let now = Date().addingTimeInterval(1)
            let claims = try await withThrowingTaskGroup(of: [String].self) { group in
                for worker in 0..<8 {
                    let store = worker.isMultiple(of: 2) ? first : second
                    let excluded: Set<String> = worker % 4 >= 2 ? [endpoints[1]] : []
                    group.addTask {
                        var ids: [String] = []
                        while true {
                            let claimed = try await store.claimDueDeliveries(
                                owner: "node-\(worker)", limit: 7, now: now, lease: 60, excludingEndpoints: excluded)
                            if claimed.isEmpty { return ids }
                            ids += claimed.map(\.id)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // A claim may come back empty while other claims hold every due row for a moment.
            let rest = try await first.claimDueDeliveries(owner: "last", limit: 1000, now: now, lease: 60)
            let ids = claims.flatMap { $0 } + rest.map(\.id)
            #expect(ids.count == 200 && Set(ids).count == 200)
            // Both nodes took part: neither waited for the other's claims to end.
            #expect(claims.filter { !$0.isEmpty }.count > 1)
        }
    }

    /// With several endpoints, a claim that excludes a slow one whose backlog is in front reads the
    /// other endpoints' index ranges, not the backlog.
    @Test func aClaimExcludingAnEndpointDoesNotWalkItsBacklog() async throws {
        let store = try await PostgresFormStore(settings: try PostgresTestCluster.shared().freshDatabase())
        defer { store.close() }
        let endpoints = try await queueDeliveries(store, count: 3, endpoints: 8)
        let now = Date().storedMilliseconds
        try await store.transaction { connection in
            try await connection.execute("""
                INSERT INTO deliveries (id, endpoint_id, submission_id, form_id, payload, status, next_attempt_at, created_at, updated_at)
                SELECT 'msg_backlog_' || n, \(endpoints[1]), 'sub_0', 'signup', '\\x00', 'pending', \(now) - 100000 + n, 0, 0
                FROM generate_series(1, 5000) AS n
                """, logger: store.logger)
            try await connection.execute("ANALYZE deliveries", logger: store.logger)
        }
        var binds = PostgresBindings()
        binds.append(now + 1000)
        binds.append([endpoints[1]])
        binds.append(10)
        binds.append([String]())
        binds.append([Int]())
        binds.append(10)
        binds.append("w")
        binds.append(now + 60_000)
        let plan = try await store.client.query(PostgresQuery(
            unsafeSQL: "EXPLAIN (ANALYZE, COSTS OFF) " + PostgresFormStore.claimPerEndpointSQL, binds: binds))
            .decode(String.self).reduce(into: []) { $0.append($1) }
        #expect(plan.contains { $0.contains("Index Scan using deliveries_due_by_endpoint on deliveries") })
        #expect(!plan.contains { $0.contains("using deliveries_due on") || $0.contains("Seq Scan on deliveries") })
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

    /// A form "signup" with `endpoints` endpoints and `count` submissions, so `count` pending deliveries
    /// per endpoint. Returns the endpoints' ids.
    @discardableResult
    private func queueDeliveries(_ store: PostgresFormStore, count: Int, endpoints: Int = 1) async throws -> [String] {
        try await makeForm(store)
        var ids: [String] = []
        for index in 0..<endpoints {
            ids.append(try await store.createEndpoint(
                NewEndpoint(formID: "signup", url: "https://\(index).test/", secretCiphertext: [1])).id)
        }
        for index in 0..<count {
            #expect(try await store.insertSubmission(newSubmission(id: "sub_\(index)")) == .inserted)
        }
        return ids
    }
}
