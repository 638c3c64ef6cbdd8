import Foundation
@testable import FormhouseApp
import Synchronization
import Testing
import WebhookReceiver
import Webhooks

/// 1,000 submissions while the receiver fails a third of requests at random and the server is
/// SIGKILLed twice. Every acknowledged submission must reach the receiver, correctly signed, and every
/// duplicate must be explained by a failed attempt or by a crash.
@Suite(.serialized) struct WebhookCrashTests {
    /// What the receiver saw.
    final class Log: Sendable {
        struct Entry { var webhookID: String; var submissionID: String; var status: Int; var at: Date; var signed: Bool }
        let entries = Mutex<[Entry]>([])
        let secret = Mutex<String?>(nil)
        let kills = Mutex<[Date]>([])
    }

    @Test func everyAcknowledgedSubmissionIsDeliveredThroughCrashes() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let log = Log()
        let receiver = try LoopbackReceiver(recording: false) { request in
            let status = Int.random(in: 0..<3) == 0 ? 500 : 200
            let secret = log.secret.withLock { $0 }
            let body = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
            let submissionID = (body?["data"] as? [String: Any])?["id"] as? String ?? ""
            let signed = secret.map { WebhooksAPITests.verify(request, secrets: [$0]) } ?? false
            log.entries.withLock {
                $0.append(.init(webhookID: request.header("webhook-id") ?? "", submissionID: submissionID,
                                status: status, at: Date(), signed: signed))
            }
            return ReceiverReply(status: status)
        }
        defer { receiver.stop() }

        let environment = [
            "FORMHOUSE_RATE_LIMIT_BURST": "100000", "FORMHOUSE_RATE_LIMIT_PER_SECOND": "100000",
            // Twenty retries: a third of answers fail, and with ten one run in 180 lost a delivery (1/3^11 each).
            "FORMHOUSE_WEBHOOKS_RETRY_SCHEDULE": "0.2,0.2,0.3,0.5" + String(repeating: ",1", count: 16),
            // A timeout well above a loaded machine's stalls; the lease is the shortest it may be.
            "FORMHOUSE_WEBHOOKS_LEASE_SECONDS": "4", "FORMHOUSE_WEBHOOKS_TIMEOUT_SECONDS": "3",
        ]
        func launch() throws -> ServerProcess {
            try ServerProcess(dataDirectory: data.path, extraArguments: ["--allow-private-webhooks"], environment: environment)
        }
        var server = try launch()
        #expect(try await server.client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        let endpoint = try await server.client.admin("POST", "/v1/admin/forms/signup/webhooks", json: #"{"url": "\#(receiver.url)"}"#)
        log.secret.withLock { $0 = endpoint.object["secret"] as? String }
        #expect(log.secret.withLock { $0 } != nil)

        // Submit in three legs of ~333, killing the server after the first two.
        var acknowledged: Set<String> = []
        var next = 0
        for leg in 0..<3 {
            let port = server.port
            let target = leg == 2 ? 1_000 : (leg + 1) * 333
            let legIDs = try await Offload.blocking { [next] in Self.submit(port: port, from: next, to: target) }
            next = target
            acknowledged.formUnion(legIDs)
            if leg < 2 {
                log.kills.withLock { $0.append(Date()) }
                server.kill9()
                server = try launch()
            }
        }
        #expect(acknowledged.count == 1_000)

        let deadline = Date().addingTimeInterval(120)
        var delivered: Set<String> = []
        while Date() < deadline {
            delivered = Set(log.entries.withLock { $0 }.filter { $0.status == 200 }.map(\.submissionID))
            if acknowledged.isSubset(of: delivered) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        if !acknowledged.isSubset(of: delivered) {
            // What the server made of them, for the failure's message.
            let open = try await server.client.admin("GET", "/v1/admin/deliveries?status=pending,failed,dead&limit=100")
            Issue.record("\(acknowledged.subtracting(delivered).count) acknowledged submissions never delivered; open or dead: \(open.object)")
        }

        let entries = log.entries.withLock { $0 }
        #expect(entries.filter { !$0.signed }.isEmpty, "a request carried no valid signature")
        // A repeated success for one webhook-id is explained by a crash near the first success, or by
        // attempts the server saw fail although the receiver answered 200 (a reply later than the
        // timeout on a loaded machine): the server's attempt log has them without a status.
        let kills = log.kills.withLock { $0 }
        for (id, group) in Dictionary(grouping: entries, by: \.webhookID) {
            let successes = group.filter { $0.status == 200 }.sorted { $0.at < $1.at }
            guard successes.count > 1 else { continue }
            let first = successes[0].at
            if kills.contains(where: { kill in first <= kill.addingTimeInterval(1) && kill.timeIntervalSince(first) < 5 }) { continue }
            let record = try await server.client.admin("GET", "/v1/admin/deliveries/\(id)")
            let attempts = record.object["attemptLog"] as? [[String: Any]] ?? []
            let unanswered = attempts.filter { $0["statusCode"] is NSNull }
            #expect(unanswered.count >= successes.count - 1,
                    "webhook-id \(id) succeeded \(successes.count) times with no crash or failed attempt to explain it: \(attempts)")
        }
        _ = server.terminate()
    }

    /// Submits numbers `from+1...to` from four threads; returns the ids acknowledged with 201.
    static func submit(port: Int, from: Int, to target: Int) -> Set<String> {
        let ids = Mutex<[String]>([])
        let counter = Mutex(from)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let client = TestHTTPClient(port: port)
            while true {
                let n: Int? = counter.withLock { value in
                    guard value < target else { return nil }
                    value += 1
                    return value
                }
                guard let n else { return }
                guard let response = try? client.postJSONNow("/v1/forms/signup/submissions", Fixtures.values(name: "n\(n)")),
                      response.status == 201, let id = response.object["id"] as? String else { continue }
                ids.withLock { $0.append(id) }
            }
        }
        return Set(ids.withLock { $0 })
    }
}
