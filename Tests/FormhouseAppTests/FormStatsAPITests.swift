import Foundation
import Synchronization
import Testing
@testable import FormhouseApp

/// `GET /v1/admin/forms/{id}/stats` over real sockets: a known sequence of drafts, submissions and
/// refusals gives exactly its counts, which outlive a restart and a kill -9 under load.
@Suite struct FormStatsAPITests {
    static func stats(_ client: TestHTTPClient, _ query: String = "") async throws -> [String: Any] {
        let reply = try await client.admin("GET", "/v1/admin/forms/trip/stats" + query)
        #expect(reply.status == 200, "\(reply.text)")
        return reply.object
    }

    static let complete = #"{"values": {"name": "Ana", "mail": "ana@example.org", "address": {"line1": "Rua A"}, "guests": [{"guest": "Bia"}]}}"#

    @Test func aKnownSequenceGivesItsCountsAndOutlivesARestart() async throws {
        let data = try TemporaryDirectory()
        let server = try await DraftsAPITests.server { $0.dataDirectory = data.path }
        let client = server.client
        // Two drafts; one is submitted after a refusal.
        let (first, _) = try await DraftsAPITests.create(client, #"{"values": {"name": "Ana"}}"#)
        _ = try await DraftsAPITests.create(client)
        #expect(try await DraftsAPITests.call(client, "POST", "/v1/drafts/\(first.id)/submit", token: first.token).status == 422)
        #expect(try await DraftsAPITests.patch(client, first, #"{"mail": "ana@example.org", "address": {"line1": "Rua A"}, "guests": [{"guest": "Bia"}]}"#).status == 200)
        #expect(try await DraftsAPITests.call(client, "POST", "/v1/drafts/\(first.id)/submit", token: first.token).status == 201)
        // Three direct submissions, one of them replayed by its key (counted once).
        for key in ["k1", "k2", "k2"] {
            #expect(try await client.postJSON("/v1/forms/trip/submissions", Self.complete, headers: [("Idempotency-Key", key)]).status == 201)
        }
        // Refusals: two inputs of one repeat item each, an unknown key, an e-mail; and a body that is no
        // JSON, which is no refusal of values and is not counted.
        #expect(try await client.postJSON("/v1/forms/trip/submissions",
            #"{"values": {"name": "Ana", "mail": "x", "address": {"line1": "A"}, "guests": [{"age": -1}, {"age": -2}], "color": "red"}}"#).status == 422)
        #expect(try await client.postJSON("/v1/forms/trip/submissions", "{").status == 400)

        // The draft's refusal (what it lacked), then the submission's, repeat items folded together.
        let expected: [String: [String: Int]] = [
            "mail": ["required": 1, "email": 1], "address.line1": ["required": 1], "guests": ["repeat": 1],
            "guests[].guest": ["required": 1], "guests[].age": ["minValue": 1], "*": ["unknown": 1],
        ]
        do {
            let stats = try await Self.stats(client)
            #expect(stats["draftsStarted"] as? Int == 2)
            #expect(stats["draftsSubmitted"] as? Int == 1)
            #expect(stats["submissions"] as? Int == 3)
            #expect(stats["rejected"] as? Int == 2)
            #expect(stats["completionRate"] as? Double == 0.5)
            #expect(stats["rejections"] as? [String: [String: Int]] == expected, "\(stats["rejections"] ?? "")")
            let daily = stats["daily"] as? [[String: Any]] ?? []
            #expect(daily.count == 30)
            #expect(daily.last?["date"] as? String == stats["to"] as? String)
            #expect(daily.last?["submissions"] as? Int == 3)
            #expect(daily.last?["rejected"] as? Int == 2)
            #expect(daily.last?["draftsStarted"] as? Int == 2)
            #expect(daily.dropLast().allSatisfy { $0["submissions"] as? Int == 0 })
        }
        await server.stop()
        // The counters are rows of the database: a new process reads the same.
        let restarted = try await InProcessServer(dataDirectory: data)
        let after = try await Self.stats(restarted.client, "?days=1")
        #expect(after["submissions"] as? Int == 3)
        #expect(after["rejected"] as? Int == 2)
        #expect((after["daily"] as? [Any])?.count == 1)
        #expect(try await restarted.client.admin("GET", "/v1/admin/forms/trip/stats?days=0").status == 400)
        #expect(try await restarted.client.admin("GET", "/v1/admin/forms/trip/stats?days=367").status == 400)
        #expect(try await restarted.client.admin("GET", "/v1/admin/forms/nowhere/stats").status == 404)
        #expect(try await restarted.client.get("/v1/admin/forms/trip/stats").status == 401)
        await restarted.finish()
    }

    /// Submissions, refusals and drafts flow from several clients while the server is SIGKILLed; after
    /// the restart the counters say what the rows say, and count at least everything acknowledged.
    @Test func theCountersAgreeWithTheRowsAfterAKill9UnderLoad() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let environment = ["FORMHOUSE_RATE_LIMIT_BURST": "100000", "FORMHOUSE_RATE_LIMIT_PER_SECOND": "100000",
                           "FORMHOUSE_DRAFTS_MAX_PER_CLIENT_PER_HOUR": "100000"]
        let server = try ServerProcess(dataDirectory: data.path, environment: environment)
        #expect(try await server.client.admin("PUT", "/v1/admin/forms/trip", json: DraftsAPITests.trip).status == 201)

        let tally = StatsTally()
        let port = server.port
        let threads = (0..<6).map { c in
            Thread {
                let client = TestHTTPClient(port: port)
                var i = 0
                while !tally.stop.load(ordering: .relaxed) && i < 3_000 {
                    i += 1
                    let kind = (c + i) % 3
                    tally.attempted.withLock { $0[kind] += 1 }
                    let reply: TestResponse?
                    switch kind {
                    case 0: reply = try? client.postJSONNow("/v1/forms/trip/submissions", Self.complete)
                    case 1: reply = try? client.postJSONNow("/v1/forms/trip/submissions", #"{"values": {"mail": "x"}}"#)
                    default: reply = try? client.postJSONNow("/v1/forms/trip/drafts", #"{"values": {"name": "Ana"}}"#)
                    }
                    guard let reply else { break }
                    if [201, 422].contains(reply.status) { tally.acknowledged.withLock { $0[kind] += 1 } }
                }
            }
        }
        threads.forEach { $0.start() }
        let deadline = Date().addingTimeInterval(60)
        while tally.acknowledged.withLock({ $0.reduce(0, +) }) < 300 && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        server.kill9()
        tally.stop.store(true, ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(200))

        let restarted = try ServerProcess(dataDirectory: data.path, environment: environment)
        defer { if restarted.process.isRunning { _ = restarted.terminate() } }
        let client = restarted.client
        let stats = try await Self.stats(client, "?days=2")
        let export = try await client.admin("GET", "/v1/admin/forms/trip/submissions?format=ndjson")
        let rows = export.text.split(separator: "\n").count
        let acknowledged = tally.acknowledged.withLock { $0 }
        let attempted = tally.attempted.withLock { $0 }
        #expect(acknowledged[0] >= 50 && acknowledged[1] >= 50 && acknowledged[2] >= 50, "\(acknowledged)")
        #expect(stats["submissions"] as? Int == rows, "the counter is written in the rows' own transaction")
        #expect((acknowledged[0]...attempted[0]).contains(rows))
        let rejected = stats["rejected"] as? Int ?? -1
        #expect((acknowledged[1]...attempted[1]).contains(rejected), "\(rejected) refusals counted, \(acknowledged[1]) answered")
        let started = stats["draftsStarted"] as? Int ?? -1
        #expect((acknowledged[2]...attempted[2]).contains(started), "\(started) drafts counted, \(acknowledged[2]) answered")
        #expect((stats["rejections"] as? [String: [String: Int]])?["mail"]?["email"] == rejected)
        #expect(restarted.terminate() == 0)
    }
}

/// Requests by kind (0 valid submission, 1 refused submission, 2 draft): sent, and answered.
final class StatsTally: Sendable {
    let acknowledged = Mutex<[Int]>([0, 0, 0])
    let attempted = Mutex<[Int]>([0, 0, 0])
    let stop = Atomic<Bool>(false)
}
