import Foundation
import GRDB
import Testing
@testable import FormStore
@testable import FormhouseApp

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
        let lock = try await WriteLock(on: server)
        let blocked = try await client.postJSON("/v1/forms/signup/submissions", Fixtures.values(name: "Blocked"))
        #expect(blocked.status == 503)
        #expect(blocked.header("Retry-After") != nil)
        #expect(blocked.object["type"] as? String == "https://formhouse.dev/problems/unavailable")
        // Reads are not blocked by a writer in WAL mode, so the server still answers meanwhile.
        #expect(try await client.get("/v1/forms/signup").status == 200)
        try await lock.release()

        #expect(try await client.postJSON("/v1/forms/signup/submissions", Fixtures.values(name: "Blocked")).status == 201)
        let page = try await client.admin("GET", "/v1/admin/forms/signup/submissions")
        let names = (page.object["items"] as? [[String: Any]] ?? []).compactMap { ($0["values"] as? [String: Any])?["name"] as? String }
        // The refused request left nothing behind: the first submission and the retried one only.
        #expect(names.sorted() == ["Ana", "Blocked"], "\(names)")
        await server.finish()
    }

    /// A write whose outcome is unknown (an I/O error at COMMIT; the store's own tests cause one) must
    /// not say "nothing was changed": the row may be there after a restart. (Submissions say more:
    /// whether their Idempotency-Key can tell.)
    @Test func anUnknownOutcomeSaysTheRequestMayHaveBeenStored() throws {
        let response = StoreError.outcomeUnknown("SQLITE_IOERR_FSYNC: disk I/O error").problem.response
        #expect(response.status == 503)
        #expect(response.headers["Retry-After"] != nil)
        guard case .bytes(let bytes) = response.body else { Issue.record("no body"); return }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("may have been applied") && text.contains("Read it back"), "\(text)")
        #expect(!text.contains("nothing was") && !text.contains("SQLITE"), "\(text)")
    }
}

/// While the first request with a key waits for its commit, a second one with the same key is told to
/// retry (409), deterministically: the commit is held back by another connection's write lock.
@Suite struct InFlightKeyTests {
    @Test func aKeyStillBeingStoredAnswers409ThenReplays() async throws {
        let server = try await InProcessServer()
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        let lock = try await WriteLock(on: server)

        let key = [("Idempotency-Key", "in-flight-key")]
        let first = Task { try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues, headers: key) }
        // Wait until the first has been handed to a group write, which now waits for the lock.
        let store = try #require(server.app.store as? SQLiteFormStore)
        for _ in 0..<500 where store.submissionCommitter.takenCount < 1 {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(store.submissionCommitter.takenCount == 1)
        let second = try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues, headers: key)
        #expect(second.status == 409)
        #expect(second.object["type"] as? String == "https://formhouse.dev/problems/idempotency-in-flight")
        #expect(second.header("Retry-After") != nil)

        try await lock.release()
        let stored = try await first.value
        #expect(stored.status == 201)
        let replay = try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues, headers: key)
        #expect(replay.status == 201 && replay.header("Idempotent-Replayed") == "true" && replay.body == stored.body)
        await server.finish()
    }
}

/// SQLite's write lock, taken by a second connection to the server's database file, so that the
/// server's next group commit waits for it (and fails after the store's 5 s busy timeout).
struct WriteLock {
    private let queue: DatabaseQueue

    init(on server: InProcessServer) async throws {
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true  // the transaction is left open across accesses on purpose
        configuration.busyMode = .timeout(5)  // the server's delivery worker writes now and then too
        queue = try DatabaseQueue(path: server.data.url.appendingPathComponent("formhouse.sqlite").path, configuration: configuration)
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
    }

    func release() async throws {
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
        try queue.close()
    }
}
