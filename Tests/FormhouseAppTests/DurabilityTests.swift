import Foundation
import GRDB
import Synchronization
import Testing

/// The real executable, stopped gracefully and killed with SIGKILL, on the same data directory.
@Suite(.serialized) struct DurabilityTests {
    @Test func restartKeepsFormsVersionsAndSubmissions() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let first = try ServerProcess(dataDirectory: data.path)
        var client = first.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signupV2).status == 200)
        let submitted = try await client.postJSON("/v1/forms/signup/submissions", #"{"formVersion": 1, "values": {"name": "Ana", "mail": "ana@example.org", "address": {"line1": "x"}}}"#)
        #expect(submitted.status == 201)
        let before = try await client.get("/v1/forms/signup").body
        let firstVersionBefore = try await client.admin("GET", "/v1/admin/forms/signup?version=1").body
        #expect(first.terminate() == 0)

        let second = try ServerProcess(dataDirectory: data.path)
        client = second.client
        let after = try await client.get("/v1/forms/signup")
        #expect(after.header("ETag") == "\"2\"")
        #expect(after.body == before)
        let firstVersion = try await client.admin("GET", "/v1/admin/forms/signup?version=1")
        #expect(firstVersion.status == 200)
        #expect(firstVersion.body == firstVersionBefore)
        let id = submitted.object["id"] as? String ?? ""
        let stored = try await client.admin("GET", "/v1/admin/submissions/\(id)")
        #expect(stored.status == 200)
        #expect(stored.object["formVersion"] as? Int == 1)
        // The sample forms are not loaded twice.
        let forms = try await client.admin("GET", "/v1/admin/forms").object["items"] as? [Any]
        let files = try FileManager.default.contentsOfDirectory(atPath: Repo.forms).filter { $0.hasSuffix(".json") }
        #expect(forms?.count == files.count + 1)
        #expect(second.terminate() == 0)
    }

    /// Several clients submit with idempotency keys while the server is SIGKILLed. Every key that got a
    /// 201 must be stored exactly once; resending every key afterwards must never create a second row.
    @Test func kill9LosesNothingAcknowledged() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let environment = ["FORMHOUSE_RATE_LIMIT_BURST": "100000", "FORMHOUSE_RATE_LIMIT_PER_SECOND": "100000"]
        let server = try ServerProcess(dataDirectory: data.path, environment: environment)
        #expect(try await server.client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)

        let tally = Tally()
        let port = server.port
        let clients = 6
        let threads = (0..<clients).map { c in
            Thread {
                let client = TestHTTPClient(port: port)
                var i = 0
                while !tally.stop.load(ordering: .relaxed) && i < 2_000 {
                    let key = "c\(c)-\(i)"
                    i += 1
                    tally.attempted.withLock { $0.append(key) }
                    guard let response = try? client.postJSONNow("/v1/forms/signup/submissions", Fixtures.values(name: key),
                                                              headers: [("Idempotency-Key", key)]) else { break }
                    if response.status == 201, let id = response.object["id"] as? String {
                        tally.acknowledged.withLock { $0[key] = id }
                    }
                }
            }
        }
        threads.forEach { $0.start() }
        // Let submissions flow, then kill mid-stream.
        let deadline = Date().addingTimeInterval(60)
        while tally.acknowledged.withLock({ $0.count }) < 150 && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        server.kill9()
        tally.stop.store(true, ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(200))
        #expect(server.process.terminationReason == .uncaughtSignal && server.process.terminationStatus == SIGKILL)

        let restarted = try ServerProcess(dataDirectory: data.path, environment: environment)
        defer { if restarted.process.isRunning { _ = restarted.terminate() } }
        let client = restarted.client
        let acked = tally.acknowledged.withLock { $0 }
        #expect(acked.count >= 150)
        // Mid-stream: requests were still being sent when it died, and got no answer.
        #expect(tally.attempted.withLock { $0.count } > acked.count)
        for (key, id) in acked {
            let stored = try await client.admin("GET", "/v1/admin/submissions/\(id)")
            #expect(stored.status == 200, "acknowledged \(key) lost")
            #expect(stored.object["idempotencyKey"] as? String == key)
        }
        // Resend every key: acknowledged ones replay the same id, the rest are stored now, none twice.
        let keys = tally.attempted.withLock { $0 }
        for key in keys {
            let response = try await client.postJSON("/v1/forms/signup/submissions", Fixtures.values(name: key), headers: [("Idempotency-Key", key)])
            #expect(response.status == 201)
            if let id = acked[key] { #expect(response.object["id"] as? String == id) }
        }
        let export = try await client.admin("GET", "/v1/admin/forms/signup/submissions?format=ndjson")
        let rows = export.text.split(separator: "\n")
        #expect(rows.count == Set(keys).count)

        // Nothing half-written: the file is sound, and the form's count, which each group adds to in
        // its own transaction, agrees with the rows that are there.
        #expect(restarted.terminate() == 0)
        let queue = try DatabaseQueue(path: data.url.appendingPathComponent("formhouse.sqlite").path)
        let (integrity, counted, stored) = try await queue.read { db in
            (try String.fetchOne(db, sql: "PRAGMA integrity_check"),
             try Int.fetchOne(db, sql: "SELECT submission_count FROM forms WHERE id = 'signup'"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM submissions WHERE form_id = 'signup'"))
        }
        try queue.close()
        #expect(integrity == "ok")
        #expect(counted == stored)
    }
}

/// What the submitting threads saw, shared between them.
final class Tally: Sendable {
    let acknowledged = Mutex<[String: String]>([:])   // idempotency key -> submission id
    let attempted = Mutex<[String]>([])
    let stop = Atomic<Bool>(false)
}
