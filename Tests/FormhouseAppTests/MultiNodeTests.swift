import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import FormhouseApp
import StoreTestSupport
import Synchronization
import Testing
import WebhookReceiver

/// Real `formhouse serve` processes sharing one PostgreSQL database: what one node does, the others
/// see; a node killed mid-delivery loses nothing; a database that goes away and comes back costs
/// answers (503), never an acknowledged submission.
@Suite(.serialized) struct MultiNodeTests {
    static let secretKey = Data(repeating: 7, count: 32).base64EncodedString()

    /// A node on the database at `url`, with its own directory for its port and config files, which
    /// goes with it.
    final class Node {
        let process: ServerProcess
        private let directory: TemporaryDirectory

        init(_ url: String, environment: [String: String] = [:], logFile: String? = nil) throws {
            directory = try TemporaryDirectory()
            var settings = [
                "FORMHOUSE_DATABASE_URL": url, "FORMHOUSE_SECRET_KEY": MultiNodeTests.secretKey,
                "FORMHOUSE_RATE_LIMIT_BURST": "100000", "FORMHOUSE_RATE_LIMIT_PER_SECOND": "100000",
            ]
            settings.merge(environment) { $1 }
            process = try ServerProcess(dataDirectory: directory.path, environment: settings, logFile: logFile,
                                        logLevel: logFile == nil ? "error" : "info")
        }

        deinit { directory.remove() }

        var client: TestHTTPClient { process.client }
        var port: Int { process.port }
        func terminate() -> Int32 { process.terminate() }
    }

    static func freshDatabaseURL() throws -> String {
        let cluster = try PostgresTestCluster.shared()
        return cluster.url(database: try cluster.freshDatabase().database)
    }

    @Test func aFormSavedOnOneNodeIsServedByTheOtherWithinASecond() async throws {
        let url = try Self.freshDatabaseURL()
        let a = try Node(url)
        let b = try Node(url)

        #expect(try await a.client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        // B reads it once, so it holds version 1 in its cache when A saves version 2.
        #expect(try await b.client.get("/v1/forms/signup").object["version"] as? Int == 1)

        #expect(try await a.client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signupV2).status == 200)
        let saved = Date()
        let servedByB = try await Self.poll(until: saved.addingTimeInterval(1)) {
            try await b.client.get("/v1/forms/signup").object["version"] as? Int == 2
        }
        #expect(servedByB, "B still served version 1 a second after A saved version 2")

        #expect(try await a.client.admin("DELETE", "/v1/admin/forms/signup").status == 204)
        let deleted = Date()
        let goneOnB = try await Self.poll(until: deleted.addingTimeInterval(1)) {
            try await b.client.get("/v1/forms/signup").status == 404
        }
        #expect(goneOnB, "B still served the form a second after A deleted it")
        #expect(a.terminate() == 0)
        #expect(b.terminate() == 0)
    }

    /// Files on a storage both nodes reach (here a shared directory; S3 in production): an upload
    /// taken by one node is bound by a submission to the other, which serves it back, and a second
    /// submission naming it on the first node is refused.
    @Test func anUploadToOneNodeIsSubmittedAndDownloadedThroughTheOther() async throws {
        let url = try Self.freshDatabaseURL()
        let files = try TemporaryDirectory()
        defer { files.remove() }
        let storage = ["FORMHOUSE_STORAGE_URL": "file://" + files.path, "FORMHOUSE_UPLOADS_MIN_FREE_BYTES": "0"]
        let a = try Node(url, environment: storage)
        let b = try Node(url, environment: storage)
        #expect(try await a.client.admin("PUT", "/v1/admin/forms/claim", json: FileFixtures.claimForm).status == 201)

        let upload = try await UploadsAPITests.upload(a.client, field: "photo", type: "image/png", FileFixtures.png)
        #expect(upload.status == 201, "\(upload.text)")
        let id = try #require(upload.object["id"] as? String)
        let submitted = try await b.client.postJSON("/v1/forms/claim/submissions", #"{"values": {"photo": "\#(id)"}}"#)
        #expect(submitted.status == 201, "\(submitted.text)")
        #expect(try await b.client.admin("GET", "/v1/admin/files/\(id)").body == FileFixtures.png)
        #expect(try await a.client.postJSON("/v1/forms/claim/submissions", #"{"values": {"photo": "\#(id)"}}"#).status == 422)
        #expect(a.terminate() == 0)
        #expect(b.terminate() == 0)
    }

    @Test func anIdempotencyKeySentToBothNodesStoresOneSubmission() async throws {
        let url = try Self.freshDatabaseURL()
        let a = try Node(url)
        let b = try Node(url)
        #expect(try await a.client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)

        let key = [("Idempotency-Key", "key-\(UUID().uuidString)")]
        let first = try await a.client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues, headers: key)
        #expect(first.status == 201)
        let again = try await b.client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues, headers: key)
        #expect(again.status == 201)
        #expect(again.header("Idempotent-Replayed") == "true")
        #expect(again.body == first.body)

        // The same new key to both nodes at once: one row, and both answers name it.
        let racing = [("Idempotency-Key", "key-\(UUID().uuidString)")]
        let (clientA, clientB) = (a.client, b.client)
        async let fromA = clientA.postJSON("/v1/forms/signup/submissions", Fixtures.validValues, headers: racing)
        async let fromB = clientB.postJSON("/v1/forms/signup/submissions", Fixtures.validValues, headers: racing)
        let (answerA, answerB) = try await (fromA, fromB)
        #expect(answerA.status == 201 && answerB.status == 201)
        #expect(answerA.object["id"] as? String == answerB.object["id"] as? String)

        let page = try await b.client.admin("GET", "/v1/admin/forms/signup/submissions?limit=100")
        #expect((page.object["items"] as? [Any])?.count == 2)

        // A page's cursor, sealed with the shared key by A, is opened by B.
        let pageOnA = try await a.client.admin("GET", "/v1/admin/forms/signup/submissions?limit=1")
        let cursor = try #require(pageOnA.object["nextCursor"] as? String)
        let encoded = try #require(cursor.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics))
        let pageOnB = try await b.client.admin("GET", "/v1/admin/forms/signup/submissions?limit=1&cursor=\(encoded)")
        #expect(pageOnB.status == 200)
        let ids = [pageOnA, pageOnB].compactMap { ($0.object["items"] as? [[String: Any]])?.first?["id"] as? String }
        #expect(Set(ids).count == 2)
        #expect(a.terminate() == 0)
        #expect(b.terminate() == 0)
    }

    /// Every node must open what the others sealed, so a node on PostgreSQL without `secretKey`
    /// refuses to start and names the setting.
    @Test func aNodeWithoutASecretKeyRefusesToStart() throws {
        let url = try Self.freshDatabaseURL()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path + "/node.log"
        #expect(throws: TestClientError.self) {
            _ = try ServerProcess(dataDirectory: directory.path, environment: ["FORMHOUSE_DATABASE_URL": url], logFile: log)
        }
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.contains("secretKey") && text.contains("database.url"), "\(text)")
    }

    /// Submissions to both nodes while the receiver is slow, A killed with SIGKILL with deliveries in
    /// flight, the requests it left unanswered sent again to B with their keys: every key is stored
    /// once, and B delivers every submission, A's leased ones once their lease is over.
    @Test func aNodeKilledMidDeliveryLosesNothing() async throws {
        let url = try Self.freshDatabaseURL()
        let delivered = DeliveredIDs()
        let receiver = try LoopbackReceiver(recording: false) { request in
            let body = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
            if let id = (body?["data"] as? [String: Any])?["id"] as? String {
                delivered.ids.withLock { _ = $0.insert(id) }
            }
            return ReceiverReply(status: 200, delay: .milliseconds(50))
        }
        defer { receiver.stop() }
        let webhookSettings = [
            "FORMHOUSE_WEBHOOKS_ALLOW_PRIVATE": "true",
            "FORMHOUSE_WEBHOOKS_LEASE_SECONDS": "4", "FORMHOUSE_WEBHOOKS_TIMEOUT_SECONDS": "3",
            "FORMHOUSE_WEBHOOKS_RETRY_SCHEDULE": "0.2,0.5,1,1,1,1,1,1",
        ]
        let a = try Node(url, environment: webhookSettings)
        let b = try Node(url, environment: webhookSettings)
        #expect(try await a.client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        #expect(try await a.client.admin("POST", "/v1/admin/forms/signup/webhooks", json: #"{"url": "\#(receiver.url)"}"#).status == 201)

        let total = 300
        let (aPort, bPort, aProcess) = (a.port, b.port, a.process.process.processIdentifier)
        let killed = Flag()
        let acknowledged = try await Offload.blocking {
            Self.submitToBoth(total: total, ports: (aPort, bPort), aKilled: killed) { sent in
                // Half way, with deliveries of A in flight at the slow receiver.
                if sent == total / 2 {
                    kill(aProcess, SIGKILL)
                    killed.set(true)
                }
            }
        }
        #expect(killed.isSet)
        #expect(acknowledged.count == total, "every key is acknowledged by A or, sent again, by B")

        let page = try await b.client.admin("GET", "/v1/admin/forms/signup/submissions?limit=500")
        let stored = (page.object["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(page.status == 200)
        #expect(stored.count == total, "a key was stored twice or not at all")
        #expect(Set(stored) == Set(acknowledged.values))

        let allDelivered = try await Self.poll(until: Date().addingTimeInterval(60)) {
            Set(acknowledged.values).isSubset(of: delivered.ids.withLock { $0 })
        }
        if !allDelivered {
            let open = try await b.client.admin("GET", "/v1/admin/deliveries?status=pending,failed,dead&limit=20")
            Issue.record("\(Set(acknowledged.values).subtracting(delivered.ids.withLock { $0 }).count) never delivered; open: \(open.text)")
        }
        #expect(b.terminate() == 0)
    }

    /// The database stopped under load and started again: no 201 for anything not stored, 503 with
    /// Retry-After meanwhile, and 201s again once it is back, without restarting the node.
    @Test func theDatabaseGoingAwayUnderLoadCostsAnswersNotSubmissions() async throws {
        let cluster = try PostgresTestCluster.dedicated()
        defer { cluster.remove() }
        let url = cluster.url(database: try cluster.freshDatabase().database)
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("formhouse-node-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        // A short statement timeout bounds how long a request waits on a connection the stop cut
        // (twice it): the test's outage is seconds long.
        let node = try Node(url, environment: ["FORMHOUSE_DATABASE_STATEMENT_TIMEOUT_SECONDS": "2"], logFile: log)
        #expect(try await node.client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)

        let port = node.port
        let outcomes = Outcomes()
        let running = Flag(true)
        // Blocking sockets, so on threads of their own: on the cooperative pool they would starve the test.
        let load = Task {
            try await Offload.blocking {
                DispatchQueue.concurrentPerform(iterations: 4) { worker in
                    var n = 0
                    while running.isSet {
                        n += 1
                        let client = TestHTTPClient(port: port)
                        let key = [("Idempotency-Key", "w\(worker)-\(n)")]
                        guard let answer = try? client.postJSONNow("/v1/forms/signup/submissions", Fixtures.validValues, headers: key)
                        else { continue }
                        outcomes.list.withLock {
                            $0.append(.init(status: answer.status, id: answer.object["id"] as? String,
                                            retryAfter: answer.header("Retry-After"), at: Date()))
                        }
                    }
                }
            }
        }
        try await Task.sleep(for: .seconds(1))
        try cluster.stop()
        // Longer than a request can ride out: a group given up two seconds after its connection
        // closed, then another connection waited for (three seconds).
        try await Task.sleep(for: .seconds(6))
        #expect(try await node.client.get("/readyz").status == 503)
        try cluster.start()
        let restarted = Date()
        let servingAgain = try await Self.poll(until: restarted.addingTimeInterval(30)) {
            outcomes.list.withLock { $0.contains { $0.status == 201 && $0.at > restarted } }
        }
        running.set(false)
        try await load.value
        if !servingAgain {
            let tail = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").suffix(30)
            Issue.record("no submission was accepted after the database came back; the node's log ends:\n\(tail.joined(separator: "\n"))")
        }

        let all = outcomes.list.withLock { $0 }
        #expect(all.contains { $0.status == 503 }, "the outage was never noticed")
        for outcome in all where outcome.status != 201 {
            #expect(outcome.status == 503 && outcome.retryAfter != nil, "an answer during the outage: \(outcome.status)")
        }
        for id in Set(all.filter { $0.status == 201 }.compactMap(\.id)) {
            #expect(try await node.client.admin("GET", "/v1/admin/submissions/\(id)").status == 200, "acknowledged \(id) is not stored")
        }
        #expect(try await node.client.get("/readyz").status == 200)
        #expect(node.terminate() == 0)
    }

    /// A node started before its database listens at once, answers /readyz with 503, and becomes
    /// ready, with the sample forms loaded, once the database starts.
    @Test func aNodeStartedBeforeItsDatabaseWaitsForIt() async throws {
        let cluster = try PostgresTestCluster.dedicated()
        defer { cluster.remove() }
        let url = cluster.url(database: try cluster.freshDatabase().database)
        try cluster.stop()
        let node = try Node(url)
        #expect(try await node.client.get("/readyz").status == 503)
        #expect(try await node.client.get("/v1/forms/household").status == 503)
        try cluster.start()
        let ready = try await Self.poll(until: Date().addingTimeInterval(30)) {
            try await node.client.get("/readyz").status == 200
        }
        #expect(ready)
        let samplesLoaded = try await Self.poll(until: Date().addingTimeInterval(10)) {
            try await node.client.get("/v1/forms/household").status == 200
        }
        #expect(samplesLoaded)
        #expect(node.terminate() == 0)
    }

    /// Checks `condition` every 20 ms until it holds (true) or `deadline` passes (false).
    static func poll(until deadline: Date, _ condition: () async throws -> Bool) async throws -> Bool {
        while true {
            if try await condition() { return true }
            if Date() > deadline { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Submits `total` submissions, each with its own key, alternately to A and B from four threads;
    /// once A is killed, what it left unanswered (and what would have gone to it) goes to B with the
    /// same key. `sent` runs after each first send. Returns the acknowledged id by key.
    static func submitToBoth(
        total: Int, ports: (a: Int, b: Int), aKilled: Flag, sent: @escaping @Sendable (Int) -> Void
    ) -> [String: String] {
        let ids = Mutex<[String: String]>([:])
        let counter = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            while true {
                let n: Int? = counter.withLock { value in
                    guard value < total else { return nil }
                    value += 1
                    return value
                }
                guard let n else { return }
                let key = "key-\(n)"
                var port = n % 2 == 0 && !aKilled.isSet ? ports.a : ports.b
                defer { sent(n) }
                for _ in 0..<50 {
                    let client = TestHTTPClient(port: port)
                    if let answer = try? client.postJSONNow(
                        "/v1/forms/signup/submissions", Fixtures.values(name: "n\(n)"), headers: [("Idempotency-Key", key)]),
                       answer.status == 201, let id = answer.object["id"] as? String {
                        ids.withLock { $0[key] = id }
                        break
                    }
                    port = ports.b
                    usleep(50_000)
                }
            }
        }
        return ids.withLock { $0 }
    }
}

/// The answers a load got, as threads record them.
final class Outcomes: Sendable {
    struct Outcome { var status: Int; var id: String?; var retryAfter: String?; var at: Date }
    let list = Mutex<[Outcome]>([])
}

/// The submission ids a receiver was sent.
final class DeliveredIDs: Sendable {
    let ids = Mutex<Set<String>>([])
}

/// A flag that threads share.
final class Flag: Sendable {
    private let value: Atomic<Bool>
    init(_ value: Bool = false) { self.value = Atomic(value) }
    var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
    func set(_ newValue: Bool) { value.store(newValue, ordering: .sequentiallyConsistent) }
}
