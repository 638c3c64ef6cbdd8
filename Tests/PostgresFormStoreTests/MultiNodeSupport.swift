import FormStore
import Foundation
import PostgresNIO
import StoreTestSupport
import Synchronization
import Testing

@testable import PostgresFormStore

/// Adds a webhook endpoint to form `signup` by hand (the webhook store is not this suite's subject).
func addEndpoint(_ id: String, to store: PostgresFormStore, disabled: Bool = false, deleted: Bool = false) async throws {
    let now = Date().storedMilliseconds
    try await store.client.query("""
        INSERT INTO webhook_endpoints (id, form_id, url, secret_ciphertext, disabled_at, created_at, deleted_at)
        VALUES (\(id), 'signup', 'https://example.test/hook', '\\x01'::bytea, \(disabled ? now : nil), \(now),
            \(deleted ? now : nil))
        """)
}

/// A connection to the cluster's `postgres` database, for what a test does to the database under test.
func adminConnection(_ cluster: PostgresTestCluster) async throws -> PostgresConnection {
    let settings = PostgresConnectionSettings(
        endpoint: .unixSocket(directory: cluster.socketDirectory, port: cluster.port), username: cluster.username,
        password: nil, database: "postgres", sslMode: .disable)
    return try await PostgresConnection.connect(
        configuration: try settings.connectionConfiguration(), id: 99, logger: Logger(label: "test.admin"))
}

/// Runs `body` with two nodes on one fresh database that has form `signup`; the first holds each of its
/// group transactions open at `holding`, before the COMMIT, until the gate opens.
func withTwoNodes(
    firstHeldAt holding: Gate, _ body: (_ first: PostgresFormStore, _ second: PostgresFormStore) async throws -> Void
) async throws {
    let settings = try PostgresTestCluster.shared().freshDatabase()
    var configuration = PostgresStoreConfiguration()
    configuration.beforeGroupCommit = { _ in await holding.pass() }
    let first = try await PostgresFormStore(settings: settings, configuration: configuration)
    defer { first.close() }
    let second = try await PostgresFormStore(settings: settings)
    defer { second.close() }
    try await makeForm(first)
    try await body(first, second)
}

/// Holds whoever passes it until it is opened.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiting: Int)>((false, 0))

    func pass() async {
        state.withLock { $0.waiting += 1 }
        while !isOpen {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    func waitUntilSomeoneWaits() async throws {
        while state.withLock({ $0.waiting }) == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    func open() {
        state.withLock { $0.open = true }
    }

    var isOpen: Bool {
        state.withLock { $0.open }
    }
}

/// Values a handler reported, in order.
final class Seen<Value: Sendable>: Sendable {
    private let valueList = Mutex<[Value]>([])

    func add(_ value: Value) {
        valueList.withLock { $0.append(value) }
    }

    var values: [Value] {
        valueList.withLock { $0 }
    }

    /// Waits for exactly `expected`, at most `limit`; a value more than expected fails at once.
    func expect(
        _ expected: [Value], within limit: Duration, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws where Value: Equatable {
        let deadline = ContinuousClock.now + limit
        repeat {
            let now = values
            if now.count >= expected.count {
                #expect(now == expected, sourceLocation: sourceLocation)
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        } while ContinuousClock.now < deadline
        Issue.record("saw \(values) instead of \(expected) within \(limit)", sourceLocation: sourceLocation)
    }
}
