import Foundation
import GRDB
import StoreTestSupport
import Testing

@testable import FormStore

/// The counters of a database made before they were kept, and the draft counter the draft insert calls.
@Suite struct FormStatsMigrationTests {
    @Test func theCountersStartEqualToTheStoredRows() async throws {
        let directory = TemporaryDirectory()
        try await makeDatabase(in: directory, upTo: "006 uploads") { db in
            for formID in ["signup", "other"] {
                try db.execute(sql: """
                    INSERT INTO forms (id, created_at, updated_at, current_version) VALUES (?, 1, 1, 1);
                    INSERT INTO form_versions (form_id, version, definition, content_hash, title, created_at)
                        VALUES (?, 1, '{}', 'h', 'T', 1);
                    """, arguments: [formID, formID])
            }
            // Two on 2023-11-14 (the first and the last millisecond of the day), one on the 15th; one of the other form.
            let rows: [(String, String, Int64)] = [
                ("sub_1", "signup", 19_675 * 86_400_000), ("sub_2", "signup", 19_676 * 86_400_000 - 1),
                ("sub_3", "signup", 19_676 * 86_400_000 + 5), ("sub_4", "other", 19_676 * 86_400_000 + 7),
            ]
            for (id, formID, receivedAt) in rows {
                try db.execute(sql: """
                    INSERT INTO submissions (id, form_id, form_version, received_at, "values", raw_body)
                    VALUES (?, ?, 1, ?, '{}', X'7B7D')
                    """, arguments: [id, formID, receivedAt])
            }
        }
        let store = try SQLiteFormStore(directory: directory.url)
        defer { store.close() }
        #expect(try await store.stats(formID: "signup", from: 0, through: 100_000) == FormStats(
            days: [FormStatsDay(day: 19_675, submissions: 2), FormStatsDay(day: 19_676, submissions: 1)], rejections: [:]))
        #expect(try await store.stats(formID: "other", from: 0, through: 100_000).days == [
            FormStatsDay(day: 19_676, submissions: 1)
        ])

        // New rows add to the counted ones.
        #expect(try await store.insertSubmission(
            newSubmission(receivedAt: Date(timeIntervalSince1970: 19_676 * 86_400 + 60))) == .inserted)
        #expect(try await store.stats(formID: "signup", from: 19_676, through: 19_676).days == [FormStatsDay(day: 19_676, submissions: 2)])
    }

    @Test func countDraftStartedAddsToTheDayInTheCallersTransaction() async throws {
        try await withStore { store, _ in
            try await makeForm(store)
            try await store.write { db in
                try FormStatsQueries.countDraftStarted(formID: "signup", day: 19_700, in: db)
                try FormStatsQueries.countDraftStarted(formID: "signup", day: 19_700, in: db)
            }
            // Rolled back with the transaction that made it.
            _ = try? await store.write { db in
                try FormStatsQueries.countDraftStarted(formID: "signup", day: 19_700, in: db)
                throw StoreError.conflict("the draft insert failed")
            }
            #expect(try await store.stats(formID: "signup", from: 19_700, through: 19_700).days == [
                FormStatsDay(day: 19_700, draftsStarted: 2)
            ])
        }
    }
}
