import FormStore
import Foundation
import PostgresNIO
import StoreTestSupport
import Testing

@testable import PostgresFormStore

/// The counters of a database whose submissions were stored before they were kept, and the draft
/// counter the draft insert calls.
@Suite struct PostgresFormStatsTests {
    @Test func theMigrationCountsTheStoredRows() async throws {
        let settings = try PostgresTestCluster.shared().freshDatabase()
        do {
            let store = try await PostgresFormStore(settings: settings)
            defer { store.close() }
            try await makeForm(store)
            for milliseconds: Int64 in [19_675 * 86_400_000, 19_676 * 86_400_000 - 1, 19_676 * 86_400_000 + 5] {
                _ = try await store.insertSubmission(newSubmission(receivedAt: Date(storedMilliseconds: milliseconds)))
            }
            // Back to the schema before the counters, with the rows kept.
            for statement: PostgresQuery in [
                "DROP TABLE form_rejection_stats", "DROP TABLE form_daily_stats", "DELETE FROM schema_migrations WHERE version = 5",
            ] {
                for try await _ in try await store.client.query(statement) {}
            }
        }
        let store = try await PostgresFormStore(settings: settings)
        defer { store.close() }
        #expect(try await store.stats(formID: "signup", from: 0, through: 100_000) == FormStats(
            days: [FormStatsDay(day: 19_675, submissions: 2), FormStatsDay(day: 19_676, submissions: 1)], rejections: [:]))
    }

    @Test func countDraftStartedAddsToTheDayInTheCallersTransaction() async throws {
        let store = try await PostgresFormStore(settings: try PostgresTestCluster.shared().freshDatabase())
        defer { store.close() }
        try await makeForm(store)
        let logger = store.logger
        try await store.transaction { connection in
            try await PostgresFormStatsQueries.countDraftStarted(formID: "signup", day: 19_700, on: connection, logger: logger)
            try await PostgresFormStatsQueries.countDraftStarted(formID: "signup", day: 19_700, on: connection, logger: logger)
        }
        // Rolled back with the transaction that made it.
        _ = try? await store.transaction { connection in
            try await PostgresFormStatsQueries.countDraftStarted(formID: "signup", day: 19_700, on: connection, logger: logger)
            throw StoreError.conflict("the draft insert failed")
        }
        #expect(try await store.stats(formID: "signup", from: 19_700, through: 19_700).days == [
            FormStatsDay(day: 19_700, draftsStarted: 2)
        ])
    }
}
