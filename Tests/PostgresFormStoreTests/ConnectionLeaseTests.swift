import FormStore
import Foundation
import PostgresNIO
import StoreTestSupport
import Synchronization
import Testing

@testable import PostgresFormStore

/// What a lease does when its connection closes under a statement the driver never answers: the
/// driver drops a statement written as its channel closes, so the body below stands in for one by
/// waiting on a gate that only the test opens.
@Suite struct ConnectionLeaseTests {
    @Test func aBodyIsGivenUpOnlyOnceItsConnectionHasClosed() async throws {
        let cluster = try PostgresTestCluster.shared()
        let connection = try await adminConnection(cluster)
        let gate = Gate()
        defer { gate.open() }
        let watched = Task { await connection.whileOpen(grace: .milliseconds(300)) { _ in await gate.pass(); return 1 } }
        try await gate.waitUntilSomeoneWaits()
        // However long it takes, a body on an open connection is waited for.
        try await Task.sleep(for: .seconds(1))
        let closedAt = ContinuousClock.now
        try await connection.close()
        let outcome = await watched.value
        #expect(outcome == nil)
        #expect(ContinuousClock.now - closedAt < .seconds(5))

        let open = try await adminConnection(cluster)
        defer { Task { try? await open.close() } }
        let answered = await open.whileOpen { connection in
            try await connection.query("SELECT 7", logger: connection.logger).decode(Int.self).reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(try answered?.get() == [7])
    }

    @Test func aTransactionWhoseStatementWasNeverSentRunsAgainOnAnotherConnection() async throws {
        let store = try await PostgresFormStore(settings: try PostgresTestCluster.shared().freshDatabase())
        defer { store.close() }
        let gate = Gate()
        defer { gate.open() }
        let attempts = Mutex(0)
        let answer = try await store.transaction { connection in
            guard attempts.withLock({ $0 += 1; return $0 }) == 1 else {
                return try await connection.query("SELECT 'second'", logger: connection.logger).decode(String.self)
                    .reduce(into: [String]()) { $0.append($1) }
            }
            try await connection.close()
            await gate.pass()
            return ["first"]
        }
        #expect(answer == ["second"])
        #expect(attempts.withLock { $0 } == 2)
    }

    @Test func otherBodiesAreAnsweredOutcomeUnknownOnceTheirConnectionHasClosed() async throws {
        let store = try await PostgresFormStore(settings: try PostgresTestCluster.shared().freshDatabase())
        defer { store.close() }
        let gate = Gate()
        defer { gate.open() }
        let attempts = Mutex(0)
        let started = ContinuousClock.now
        do {
            // Statements before the one never sent may have been committed: it is not run again.
            _ = try await store.read { connection in
                attempts.withLock { $0 += 1 }
                try await connection.close()
                await gate.pass()
                return 1
            }
            Issue.record("a body whose connection closed under it was answered")
        } catch let error as StoreError {
            #expect(error.code == "store_outcome_unknown")
        }
        #expect(attempts.withLock { $0 } == 1)
        // Long before the answer wait (a minute by default) is over.
        #expect(ContinuousClock.now - started < .seconds(10))
        // The pool replaced the connection.
        #expect(try await store.read { try await $0.query("SELECT 1", logger: $0.logger).decode(Int.self).reduce(0) { $0 + $1 } } == 1)
    }
}
