import Foundation
import GRDB
import Testing

/// A group commit that cannot take the database answers its requests 503 with `Retry-After` and
/// stores nothing of them; the server keeps serving, and the same request succeeds once the database
/// is free again.
@Suite struct GroupFailureTests {
    @Test func aBlockedGroupCommitAnswers503AndStoresNothing() async throws {
        let server = try await InProcessServer()
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        #expect(try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues).status == 201)

        // Another connection holds the write lock past the store's busy timeout (5 s).
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true  // the transaction is left open across accesses on purpose
        let other = try DatabaseQueue(path: server.data.url.appendingPathComponent("formhouse.sqlite").path, configuration: configuration)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        let blocked = try await client.postJSON("/v1/forms/signup/submissions", Fixtures.values(name: "Blocked"))
        #expect(blocked.status == 503)
        #expect(blocked.header("Retry-After") != nil)
        #expect(blocked.object["type"] as? String == "https://formhouse.dev/problems/unavailable")
        // Reads are not blocked by a writer in WAL mode, so the server still answers meanwhile.
        #expect(try await client.get("/v1/forms/signup").status == 200)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
        try other.close()

        #expect(try await client.postJSON("/v1/forms/signup/submissions", Fixtures.values(name: "Blocked")).status == 201)
        let page = try await client.admin("GET", "/v1/admin/forms/signup/submissions")
        let names = (page.object["items"] as? [[String: Any]] ?? []).compactMap { ($0["values"] as? [String: Any])?["name"] as? String }
        // The refused request left nothing behind: the first submission and the retried one only.
        #expect(names.sorted() == ["Ana", "Blocked"], "\(names)")
        await server.finish()
    }
}
