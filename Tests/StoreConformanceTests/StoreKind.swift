import FormStore
import Foundation
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
        try await withSubmissionStore { try await body($0) }
    }

    /// Opens a fresh store of this kind, runs `body` and closes it.
    func withWebhookStore<T>(_ body: (any GroupCommittingStore) async throws -> T) async throws -> T {
        try await withSubmissionStore(body)
    }

    /// Opens a fresh store of this kind with the given idempotency window, runs `body` and closes it.
    func withSubmissionStore<T>(
        idempotencyWindow: TimeInterval = 24 * 60 * 60, _ body: (any GroupCommittingStore) async throws -> T
    ) async throws -> T {
        switch self {
        case .sqlite:
            let directory = TemporaryDirectory()
            let store = try SQLiteFormStore(
                directory: directory.url, configuration: SQLiteStoreConfiguration(idempotencyWindow: idempotencyWindow))
            defer { store.close() }
            return try await body(store)
        case .postgres:
            let store = try await PostgresFormStore(
                settings: try PostgresTestCluster.shared().freshDatabase(),
                configuration: PostgresStoreConfiguration(idempotencyWindow: idempotencyWindow))
            defer { store.close() }
            return try await body(store)
        }
    }
}

/// A store of forms, submissions, drafts, uploads, webhooks and daily counters that commits submissions
/// in groups and counts them.
protocol GroupCommittingStore: FormVersionStore, SubmissionStore, DraftStore, UploadStore, WebhookStore, FormStatsStore, RetentionStore {
    var commitStatistics: CommitStatistics { get }
}

extension SQLiteFormStore: GroupCommittingStore {}
extension PostgresFormStore: GroupCommittingStore {}
