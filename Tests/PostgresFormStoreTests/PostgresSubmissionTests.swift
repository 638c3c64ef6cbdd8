import FormStore
import Foundation
import PostgresNIO
import StoreTestSupport
import Synchronization
import Testing

@testable import PostgresFormStore

/// Submissions on a database that several nodes share: idempotency across nodes, the outbox, and
/// what a lost database does to them.
@Suite struct PostgresSubmissionTests {
    @Test func aKeyBeingInsertedOnOneNodeIsADuplicateOnAnotherOnceItCommits() async throws {
        let holding = Gate()
        try await withTwoNodes(firstHeldAt: holding) { first, second in
            let held = Task { try await first.insertSubmission(newSubmission(id: "from-first", idempotencyKey: "k")) }
            try await holding.waitUntilSomeoneWaits()
            let waiting = Task { try await second.insertSubmission(newSubmission(id: "from-second", idempotencyKey: "k")) }
            // The second insert waits on the first node's open transaction, which holds the key.
            try await Task.sleep(for: .milliseconds(500))
            #expect(second.commitStatistics.groups == 0)
            holding.open()
            #expect(try await held.value == .inserted)
            let stored = try #require(try await first.submission(id: "from-first"))
            #expect(try await waiting.value == .duplicate(existing: stored))
            #expect(try await second.submission(id: "from-second") == nil)
            #expect(try await second.listForms().first?.submissionCount == 1)
        }
    }

    @Test func twoNodesRepeatingTheSameKeysAtOnceStoreOneSubmissionPerKey() async throws {
        let settings = try PostgresTestCluster.shared().freshDatabase()
        let nodes = [try await PostgresFormStore(settings: settings), try await PostgresFormStore(settings: settings)]
        defer { nodes.forEach { $0.close() } }
        try await makeForm(nodes[0])
        let outcomes = try await withThrowingTaskGroup(of: (String, InsertOutcome).self) { group in
            for index in 0..<200 {
                let key = "key-\(index % 40)"
                let node = nodes[index % 2]
                group.addTask { (key, try await node.insertSubmission(newSubmission(id: "s\(index)", idempotencyKey: key))) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        var stored: [String: String] = [:]
        for case let (key, .duplicate(existing)) in outcomes {
            #expect(stored[key] == nil || stored[key] == existing.id)
            stored[key] = existing.id
        }
        #expect(outcomes.filter { $0.1 == .inserted }.count == 40)
        let rows = try await nodes[1].client.query("SELECT idempotency_key, id FROM submissions").decode((String, String).self)
            .reduce(into: [String: [String]]()) { $0[$1.0, default: []].append($1.1) }
        #expect(rows.count == 40 && rows.values.allSatisfy { $0.count == 1 })
        for (key, id) in stored { #expect(rows[key] == [id]) }
        #expect(try await nodes[0].listForms().first?.submissionCount == 40)
    }

    @Test func deliveriesAreQueuedForActiveEndpointsInTheSubmissionsTransaction() async throws {
        let store = try await PostgresFormStore(settings: try PostgresTestCluster.shared().freshDatabase())
        defer { store.close() }
        try await makeForm(store)
        try await addEndpoint("active", to: store)
        try await addEndpoint("disabled", to: store, disabled: true)
        try await addEndpoint("deleted", to: store, deleted: true)
        let submission = newSubmission(id: "s1")
        let payload = submission.webhookPayload
        let before = Date().storedMilliseconds
        #expect(try await store.insertSubmission(submission) == .inserted)
        let rows = try await store.client.query("""
            SELECT d.id, d.endpoint_id, d.submission_id, d.form_id, d.payload, d.status, d.attempts, d.next_attempt_at,
                d.xmin::text = s.xmin::text
            FROM deliveries d JOIN submissions s ON s.id = d.submission_id
            """).decode((String, String, String, String, ByteBuffer, String, Int, Int64, Bool).self)
            .reduce(into: []) { $0.append($1) }
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row.0.hasPrefix("msg_") && row.1 == "active" && row.2 == "s1" && row.3 == "signup")
        #expect(Array(row.4.readableBytesView) == payload)
        #expect(row.5 == "pending" && row.6 == 0 && row.7 >= before && row.7 <= Date().storedMilliseconds)
        #expect(row.8, "the delivery was written in another transaction than its submission")
    }

    @Test func aGroupThatFailsBeforeCommitStoresNothingAndTheNextOneGoesThrough() async throws {
        let healed = Gate()
        var configuration = PostgresStoreConfiguration()
        // A statement on the cut connection may fail or hang in the driver; a hang is answered
        // after twice the statement timeout.
        configuration.statementTimeout = .seconds(2)
        configuration.beforeGroupCommit = { connection in
            guard !healed.isOpen else { return }
            // The group's own connection is cut before COMMIT is sent.
            try await connection.query("SELECT pg_terminate_backend(pg_backend_pid())", logger: Logger(label: "test"))
                .reduce(into: ()) { _, _ in }
        }
        let store = try await PostgresFormStore(
            settings: try PostgresTestCluster.shared().freshDatabase(), configuration: configuration)
        defer { store.close() }
        try await makeForm(store)
        try await addEndpoint("active", to: store)
        for id in ["doomed", "doomed-again"] {
            do {
                _ = try await store.insertSubmission(newSubmission(id: id))
                Issue.record("a group whose connection was lost before COMMIT succeeded")
            } catch let error as StoreError {
                // Unknown when the driver left the statement hanging: it was never committed either way.
                #expect(error.code == "store_unavailable" || error.code == "store_outcome_unknown")
            }
        }
        #expect(store.commitStatistics.failedGroups == 2)
        healed.open()
        #expect(try await store.insertSubmission(newSubmission(id: "after")) == .inserted)
        #expect(try await store.submission(id: "doomed") == nil)
        #expect(try await store.submission(id: "doomed-again") == nil)
        #expect(try await store.listForms().first?.submissionCount == 1)
        let deliveries = try await store.client.query("SELECT submission_id FROM deliveries").decode(String.self)
            .reduce(into: []) { $0.append($1) }
        #expect(deliveries == ["after"])
    }

    /// The server ends the session of an idle pooled connection (an administrator, a failover, an
    /// idle timeout): the pool can hand it out before it has seen it close. Nothing was sent on it,
    /// so the lease takes another and the submission is stored instead of answered 503.
    @Test func aSessionTheServerEndedWhileIdleIsReplacedBeforeASubmissionUsesIt() async throws {
        let cluster = try PostgresTestCluster.shared()
        var configuration = PostgresStoreConfiguration()
        // One connection, so that the next lease is handed the one whose session ended.
        configuration.maxConnections = 1
        let store = try await PostgresFormStore(settings: try cluster.freshDatabase(), configuration: configuration)
        defer { store.close() }
        try await makeForm(store)
        let admin = try await adminConnection(cluster)
        defer { Task { try? await admin.close() } }
        for round in 0..<20 {
            let pid = try await store.read { connection in
                try await connection.query("SELECT pg_backend_pid()", logger: Logger(label: "test")).decode(Int32.self)
                    .reduce(into: [Int32]()) { $0.append($1) }
            }
            let ended = try await admin.query("SELECT pg_terminate_backend(\(pid[0]))", logger: admin.logger).decode(Bool.self)
                .reduce(into: [Bool]()) { $0.append($1) }
            #expect(ended == [true])
            #expect(try await store.insertSubmission(newSubmission(id: "s\(round)")) == .inserted)
        }
        #expect(try await store.listForms().first?.submissionCount == 20)
    }

    /// The database refuses connections for a while: every submission meanwhile fails quickly, none
    /// is answered as stored without being stored, and the pool serves again once it is back.
    @Test func aLostDatabaseMakesSubmissionsUnavailableQuicklyAndThePoolRecovers() async throws {
        let cluster = try PostgresTestCluster.shared()
        let settings = try cluster.freshDatabase()
        var configuration = PostgresStoreConfiguration(connectionWait: .seconds(1))
        // A group on a cut connection may fail or hang in the driver; a hang is answered (outcome
        // unknown) after twice the statement timeout.
        configuration.statementTimeout = .seconds(2)
        let store = try await whenAvailable { try await PostgresFormStore(settings: settings, configuration: configuration) }
        defer { store.close() }
        try await whenAvailable { try await makeForm(store) }
        #expect(try await whenAvailable { try await store.insertSubmission(newSubmission(id: "before")) } == .inserted)

        let admin = try await adminConnection(cluster)
        defer { Task { try? await admin.close() } }
        let outcomes = Seen<(String, Result<InsertOutcome, StoreError>, Duration)>()
        let writers = Task {
            await withTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        for index in 0..<40 {
                            let id = "w\(writer)-\(index)"
                            let started = ContinuousClock.now
                            let result: Result<InsertOutcome, StoreError>
                            do { result = .success(try await store.insertSubmission(newSubmission(id: id))) } catch {
                                result = .failure(error as? StoreError ?? .unavailable("\(error)"))
                            }
                            outcomes.add((id, result, ContinuousClock.now - started))
                            try? await Task.sleep(for: .milliseconds(50))
                        }
                    }
                }
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        try await admin.execute("ALTER DATABASE \(unescaped: settings.database) ALLOW_CONNECTIONS false", logger: admin.logger)
        try await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(settings.database)", logger: admin.logger)
        // Longer than a lease that rides it out: a group given up two seconds after its connection
        // closed, then another connection waited for (one second).
        try await Task.sleep(for: .seconds(5))
        try await admin.execute("ALTER DATABASE \(unescaped: settings.database) ALLOW_CONNECTIONS true", logger: admin.logger)
        await writers.value

        let all = outcomes.values
        let stored = Set(try await whenAvailable { try await store.submissions(formID: "signup", after: nil, limit: 1000) }.items.map(\.id))
        #expect(all.contains { if case .failure = $0.1 { true } else { false } }, "the loss went unnoticed")
        for (id, result, took) in all {
            #expect(took < .seconds(6), "\(id) took \(took)")
            switch result {
            case .success(.inserted): #expect(stored.contains(id), "\(id) was answered stored but is not")
            case .failure(.unavailable): #expect(!stored.contains(id), "\(id) was answered unavailable but is stored")
            case .failure(.outcomeUnknown): break
            case let other: Issue.record("\(id): \(other)")
            }
        }
        // Back: the pool connects again (after its backoff) and serves.
        var recovered = false
        for _ in 0..<100 where !recovered {
            recovered = (try? await store.insertSubmission(newSubmission(id: RandomID.make(prefix: "after_")))) == .inserted
            if !recovered { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(recovered)
        try await whenAvailable { try await store.ping() }
    }

    /// The database server itself stops at once (as in a crash or failover) and starts again:
    /// submissions meanwhile fail within the connection wait instead of hanging on the dead
    /// connections, and the store serves again without being reopened.
    @Test func theDatabaseServerStoppedAndStartedAgain() async throws {
        let cluster = try PostgresTestCluster.dedicated()
        defer { cluster.remove() }
        var configuration = PostgresStoreConfiguration(connectionWait: .seconds(1))
        configuration.statementTimeout = .seconds(2)
        let database = try cluster.freshDatabase()
        let store = try await whenAvailable { try await PostgresFormStore(settings: database, configuration: configuration) }
        defer { store.close() }
        try await whenAvailable { try await makeForm(store) }
        // As a server does: listening for changes, and a worker claiming deliveries.
        store.onFormChanged { _ in }
        store.onDeliveriesCreated {}
        let outcomes = Seen<(String, Result<InsertOutcome, StoreError>, Duration)>()
        let writers = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for _ in 0..<60 {
                        _ = try? await store.claimDueDeliveries(owner: "worker", limit: 10, now: Date(), lease: 5)
                        try? await Task.sleep(for: .milliseconds(100))
                    }
                }
                for writer in 0..<4 {
                    group.addTask {
                        for index in 0..<60 {
                            let id = "w\(writer)-\(index)"
                            let started = ContinuousClock.now
                            let result: Result<InsertOutcome, StoreError>
                            do {
                                // As a request with a key does: a read, then the insert.
                                _ = try await store.submission(formID: "signup", idempotencyKey: id)
                                result = .success(try await store.insertSubmission(newSubmission(id: id, idempotencyKey: id)))
                            } catch {
                                result = .failure(error as? StoreError ?? .unavailable("\(error)"))
                            }
                            outcomes.add((id, result, ContinuousClock.now - started))
                            try? await Task.sleep(for: .milliseconds(50))
                        }
                    }
                }
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        try cluster.stop()
        // Longer than a lease that rides it out, as above.
        try await Task.sleep(for: .seconds(4))
        try cluster.start()
        await writers.value

        let all = outcomes.values
        #expect(all.contains { if case .failure = $0.1 { true } else { false } }, "the stop went unnoticed")
        // Within the connection wait (1 s) and the answer wait (twice the statement timeout, 4 s).
        for (id, _, took) in all {
            #expect(took < .seconds(7), "\(id) took \(took)")
        }
        var recovered = false
        for _ in 0..<100 where !recovered {
            recovered = (try? await store.insertSubmission(newSubmission(id: RandomID.make(prefix: "after_")))) == .inserted
            if !recovered { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(recovered)
        let stored = Set(try await whenAvailable { try await store.submissions(formID: "signup", after: nil, limit: 1000) }.items.map(\.id))
        for (id, result, _) in all {
            switch result {
            case .success(.inserted): #expect(stored.contains(id), "\(id) was answered stored but is not")
            case .failure(.unavailable): #expect(!stored.contains(id), "\(id) was answered unavailable but is stored")
            default: break
            }
        }
    }

    @Test func aClosedStoreRefusesSubmissions() async throws {
        let store = try await PostgresFormStore(settings: try PostgresTestCluster.shared().freshDatabase())
        try await makeForm(store)
        store.close()
        await #expect(throws: StoreError.unavailable("the store is closed")) {
            try await store.insertSubmission(newSubmission())
        }
        await #expect(throws: StoreError.unavailable("the store is closed")) { try await store.ping() }
    }

    @Test func pingFailsWhenATableIsMissing() async throws {
        let store = try await PostgresFormStore(settings: try PostgresTestCluster.shared().freshDatabase())
        defer { store.close() }
        try await store.ping()
        try await store.client.query("DROP TABLE delivery_attempts")
        await #expect(throws: StoreError.self) { try await store.ping() }
    }
}

/// Runs `body` again while the store answers that it cannot reach the database, for up to `limit`.
/// A cluster just started, or just allowed connections again, on a loaded machine can take longer
/// than these tests' short connection wait to accept connections; what the tests check is how
/// the store answers meanwhile, not how soon the server is ready.
func whenAvailable<T>(limit: Duration = .seconds(30), _ body: () async throws -> T) async throws -> T {
    let deadline = ContinuousClock.now + limit
    while true {
        do { return try await body() } catch let error as StoreError {
            guard case .unavailable = error, ContinuousClock.now < deadline else { throw error }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}
