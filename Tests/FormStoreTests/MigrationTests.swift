import Foundation
import GRDB
import StoreTestSupport
import Testing

@testable import FormStore

/// A database written by an earlier schema opens with the current one and keeps its rows.
@Suite struct MigrationTests {
    @Test func aDatabaseWithStoredAnswersUpgradesAndKeepsItsSubmissions() async throws {
        let directory = TemporaryDirectory()
        // The schema as it was before answers were rebuilt: 001 and 002, with a `response` column.
        try await makeDatabase(in: directory, upTo: "002 webhook endpoints and deliveries") { db in
            try db.execute(sql: """
                INSERT INTO forms (id, created_at, updated_at, current_version) VALUES ('signup', 1, 1, 1);
                INSERT INTO form_versions (form_id, version, definition, content_hash, title, created_at)
                    VALUES ('signup', 1, '{"id":"signup","components":[]}', 'h', 'Sign up', 1);
                INSERT INTO submissions (id, form_id, form_version, received_at, "values", raw_body,
                    idempotency_key, body_hash, response, client_address)
                    VALUES ('sub_old', 'signup', 1, 1763710000123, '{"name":"Ana"}', X'7B7D', 'k1', 'h1', '{"id":"sub_old"}', '10.0.0.1');
                """)
        }
        // A window reaching back to the row's fixed date, so the lookup by key still finds it.
        let store = try SQLiteFormStore(directory: directory.url, configuration: SQLiteStoreConfiguration(idempotencyWindow: 100 * 365 * 86_400))
        defer { store.close() }
        let old = try #require(try await store.submission(id: "sub_old"))
        #expect(old.values == #"{"name":"Ana"}"# && old.rawBody == Array("{}".utf8))
        #expect(old.idempotencyKey == "k1" && old.receivedAt == Date(timeIntervalSince1970: 1_763_710_000.123))
        #expect(try await store.submission(formID: "signup", idempotencyKey: "k1")?.id == "sub_old")
        let columns = try await store.read { db in try db.columns(in: "submissions").map(\.name) }
        #expect(!columns.contains("response"))
        // The key index is partial now; lookups by key must still use it.
        let plan = try await store.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT id FROM submissions WHERE form_id = ? AND idempotency_key = ?",
                             arguments: ["signup", "k1"]).map { $0["detail"] as String }.joined(separator: "; ")
        }
        #expect(plan.contains("submissions_by_idempotency_key"), "\(plan)")
        // The count the forms list shows is taken from the rows already there, then kept.
        #expect(try await store.listForms().first?.submissionCount == 1)
        // New rows go in beside it.
        guard case .inserted = try await store.insertSubmission(newSubmission(formID: "signup")) else {
            Issue.record("the insert after the upgrade failed")
            return
        }
        #expect(try await store.listForms().first?.submissionCount == 2)
    }
}
