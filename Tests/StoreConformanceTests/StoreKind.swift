import FormStore
import PostgresFormStore
import StoreTestSupport
import Testing

/// The stores the shared suites run against: each test takes a fresh, empty one.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `SQLiteFormStore` in a temporary directory.
    case sqlite
    /// `PostgresFormStore` in a fresh database of the test cluster.
    case postgres

    var testDescription: String { rawValue }

    /// Opens a fresh store of this kind, runs `body` and closes it.
    func withFormVersionStore<T>(_ body: (any FormVersionStore) async throws -> T) async throws -> T {
        try await withWebhookStore(body)
    }

    /// Opens a fresh store of this kind, runs `body` and closes it.
    func withWebhookStore<T>(_ body: (any FormVersionStore & WebhookStore) async throws -> T) async throws -> T {
        switch self {
        case .sqlite:
            let directory = TemporaryDirectory()
            let store = try SQLiteFormStore(directory: directory.url)
            defer { store.close() }
            return try await body(store)
        case .postgres:
            let store = try await PostgresFormStore(settings: try PostgresTestCluster.shared().freshDatabase())
            defer { store.close() }
            return try await body(store)
        }
    }
}
