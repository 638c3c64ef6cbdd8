import Foundation
import Synchronization
import Testing
import WebhookReceiver
import Webhooks

/// Webhooks end to end: admin routes, the outbox committed with the submission, real libcurl to a
/// real loopback receiver that checks every signature with the secret it was given.
@Suite(.serialized) struct WebhooksAPITests {
    static func wait(_ what: String, seconds: Double = 30, until condition: () async throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try await !condition() {
            guard Date() < deadline else { throw TestClientError("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The items of `GET /v1/admin/deliveries?<query>`.
    static func deliveries(_ client: TestHTTPClient, _ query: String) async throws -> [[String: Any]] {
        try await client.admin("GET", "/v1/admin/deliveries?" + query).object["items"] as? [[String: Any]] ?? []
    }

    static func verify(_ request: ReceivedRequest, secrets: [String]) -> Bool {
        guard let id = request.header("webhook-id"), let ts = request.header("webhook-timestamp").flatMap({ Int64($0) }),
              let header = request.header("webhook-signature") else { return false }
        return secrets.contains { text in
            guard let secret = try? WebhookSecret(parsing: text) else { return false }
            return WebhookSigner.verify(id: id, timestamp: ts, body: request.body, signatureHeader: header, secret: secret)
        }
    }

    @Test func signedDeliveryReachesTheReceiver() async throws {
        let server = try await InProcessServer()
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        let receiver = try LoopbackReceiver { _ in ReceiverReply(status: 204) }
        defer { receiver.stop() }

        let created = try await client.admin("POST", "/v1/admin/forms/signup/webhooks", json: #"{"url": "\#(receiver.url)/hook"}"#)
        #expect(created.status == 201)
        let secret = try #require(created.object["secret"] as? String)
        #expect(secret.hasPrefix("whsec_"))
        let list = try await client.admin("GET", "/v1/admin/forms/signup/webhooks")
        #expect(!list.text.contains(secret))
        #expect(!list.text.contains("whsec_"))

        let accepted = try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues)
        #expect(accepted.status == 201)
        try await Self.wait("the delivery") { receiver.count >= 1 }
        let request = try #require(receiver.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/hook")
        #expect(request.header("content-type") == "application/json")
        #expect(Self.verify(request, secrets: [secret]))
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        #expect(body["type"] as? String == "submission.accepted")
        #expect((body["data"] as? [String: Any])?["id"] as? String == accepted.object["id"] as? String)

        try await Self.wait("the delivery to be recorded") {
            let deliveries = try await client.admin("GET", "/v1/admin/deliveries?status=succeeded&formId=signup")
            return (deliveries.object["items"] as? [Any])?.count == 1
        }
        let deliveries = try await client.admin("GET", "/v1/admin/deliveries?status=succeeded")
        let item = try #require((deliveries.object["items"] as? [[String: Any]])?.first)
        #expect(item["id"] as? String == request.header("webhook-id"))
        let detail = try await client.admin("GET", "/v1/admin/deliveries/\(item["id"] as? String ?? "")")
        let attempts = detail.object["attemptLog"] as? [[String: Any]] ?? []
        #expect(attempts.count == 1)
        #expect(attempts.first?["statusCode"] as? Int == 204)

        // Paging: a cursor continues its own list (same filters) and no other.
        #expect(try await client.postJSON("/v1/forms/signup/submissions", Fixtures.values(name: "Second")).status == 201)
        try await Self.wait("the second delivery") {
            let all = try await client.admin("GET", "/v1/admin/deliveries?status=succeeded")
            return (all.object["items"] as? [Any])?.count == 2
        }
        let first = try await client.admin("GET", "/v1/admin/deliveries?status=succeeded&limit=1")
        let cursor = try #require(first.object["nextCursor"] as? String)
        let second = try await client.admin("GET", "/v1/admin/deliveries?status=succeeded&limit=1&cursor=\(cursor)")
        #expect(second.status == 200)
        #expect((second.object["items"] as? [[String: Any]])?.first?["id"] as? String
                != (first.object["items"] as? [[String: Any]])?.first?["id"] as? String)
        for other in ["status=dead&limit=1", "limit=1", "status=succeeded&formId=nope&limit=1"] {
            let refused = try await client.admin("GET", "/v1/admin/deliveries?\(other)&cursor=\(cursor)")
            #expect(refused.status == 400, "\(other)")
        }
        await server.finish()
    }

    @Test func retriesThenDeadThenRedeliver() async throws {
        let server = try await InProcessServer { $0.webhookRetrySchedule = [0.1, 0.1] }
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        let state = HealthSwitch()
        let receiver = try LoopbackReceiver { _ in ReceiverReply(status: state.healthy.load(ordering: .relaxed) ? 200 : 500) }
        defer { receiver.stop() }
        #expect(try await client.admin("POST", "/v1/admin/forms/signup/webhooks", json: #"{"url": "\#(receiver.url)"}"#).status == 201)
        #expect(try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues).status == 201)

        // Three attempts (the first and two retries), then dead.
        try await Self.wait("the delivery to die") {
            let dead = try await client.admin("GET", "/v1/admin/deliveries?status=dead")
            return (dead.object["items"] as? [Any])?.count == 1
        }
        #expect(receiver.count == 3)
        let dead = try await client.admin("GET", "/v1/admin/deliveries?status=dead")
        let id = try #require((dead.object["items"] as? [[String: Any]])?.first?["id"] as? String)
        let detail = try await client.admin("GET", "/v1/admin/deliveries/\(id)")
        #expect((detail.object["attemptLog"] as? [[String: Any]])?.compactMap { $0["statusCode"] as? Int } == [500, 500, 500])

        state.healthy.store(true, ordering: .relaxed)
        #expect(try await client.admin("POST", "/v1/admin/deliveries/\(id)/redeliver").status == 202)
        try await Self.wait("the redelivery") {
            try await client.admin("GET", "/v1/admin/deliveries/\(id)").object["status"] as? String == "succeeded"
        }
        // Every attempt carried the same webhook-id, so the receiver can dedupe.
        #expect(Set(receiver.requests.compactMap { $0.header("webhook-id") }) == [id])
        #expect(try await client.admin("POST", "/v1/admin/deliveries/msg_nothing/redeliver").status == 404)
        await server.finish()
    }

    /// Redeliver while an attempt is being sent is refused (its result would overwrite the request),
    /// with a Retry-After no later than the lease's end.
    @Test func redeliverWhileBeingSentIsRefused() async throws {
        let server = try await InProcessServer()
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        // The answer waits for the test (at most 8 s, under the 10 s timeout), not for a fixed time a
        // stalled machine could outlast.
        let answered = Mutex(false)
        let receiver = try LoopbackReceiver { _ in
            let deadline = Date().addingTimeInterval(8)
            while !answered.withLock({ $0 }) && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            return ReceiverReply(status: 200)
        }
        defer { receiver.stop() }
        #expect(try await client.admin("POST", "/v1/admin/forms/signup/webhooks", json: #"{"url": "\#(receiver.url)"}"#).status == 201)
        #expect(try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues).status == 201)
        try await Self.wait("the attempt to start") { receiver.count == 1 }
        let id = try #require(try await Self.deliveries(client, "formId=signup").first?["id"] as? String)
        let refused = try await client.admin("POST", "/v1/admin/deliveries/\(id)/redeliver")
        answered.withLock { $0 = true }
        #expect(refused.status == 409)
        #expect(refused.object["type"] as? String == "https://formhouse.dev/problems/delivery-in-flight")
        let wait = try #require(refused.header("Retry-After").flatMap { Int($0) })
        #expect((1...60).contains(wait))
        try await Self.wait("the attempt to end") {
            try await client.admin("GET", "/v1/admin/deliveries/\(id)").object["status"] as? String == "succeeded"
        }
        #expect(try await client.admin("POST", "/v1/admin/deliveries/\(id)/redeliver").status == 202)
        await server.finish()
    }

    /// After a restart with another secret key, an old endpoint's secret does not open. Its deliveries
    /// fail as attempts that say why (never sent unsigned), and deliveries to other endpoints claimed
    /// in the same batch still go out; they used to wait out the lease again and again.
    @Test func aSecretThatDoesNotOpenFailsItsOwnDeliveriesOnly() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let keyA = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        let keyB = Data((0..<32).map { UInt8(255 - $0) }).base64EncodedString()
        let receiver = try LoopbackReceiver { _ in ReceiverReply(status: 200) }
        defer { receiver.stop() }
        let first = try await InProcessServer(dataDirectory: data) { $0.secretKey = keyA }
        #expect(try await first.client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        #expect(try await first.client.admin("POST", "/v1/admin/forms/signup/webhooks", json: #"{"url": "\#(receiver.url)/old"}"#).status == 201)
        await first.stop()

        let second = try await InProcessServer(dataDirectory: data) { $0.secretKey = keyB; $0.webhookRetrySchedule = [0.1] }
        let client = second.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/second", json: Fixtures.signup.replacingOccurrences(of: "\"signup\"", with: "\"second\"")).status == 201)
        #expect(try await client.admin("POST", "/v1/admin/forms/second/webhooks", json: #"{"url": "\#(receiver.url)/new"}"#).status == 201)
        for _ in 0..<5 {
            #expect(try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues).status == 201)
            #expect(try await client.postJSON("/v1/forms/second/submissions", Fixtures.validValues).status == 201)
        }
        try await Self.wait("the healthy endpoint's deliveries", seconds: 20) {
            try await Self.deliveries(client, "status=succeeded&formId=second").count == 5
        }
        try await Self.wait("the unsignable deliveries to die", seconds: 20) {
            try await Self.deliveries(client, "status=dead&formId=signup").count == 5
        }
        #expect(receiver.requests.allSatisfy { $0.path == "/new" })
        let item = try #require(try await Self.deliveries(client, "status=dead&formId=signup").first)
        #expect((item["lastError"] as? String)?.contains("signing") == true)
        await second.finish()
    }

    /// A 410 disables the endpoint, and the delivery keeps that 410 as its last status. Redelivering
    /// it is refused with a problem that says why and what to do, not a generic conflict.
    @Test func goneIsKeptAsTheLastStatus() async throws {
        let server = try await InProcessServer()
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        let receiver = try LoopbackReceiver { _ in ReceiverReply(status: 410) }
        defer { receiver.stop() }
        #expect(try await client.admin("POST", "/v1/admin/forms/signup/webhooks", json: #"{"url": "\#(receiver.url)"}"#).status == 201)
        #expect(try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues).status == 201)
        try await Self.wait("the delivery to die") { try await Self.deliveries(client, "status=dead").count == 1 }
        let item = try #require(try await Self.deliveries(client, "status=dead").first)
        #expect(item["lastStatusCode"] as? Int == 410)
        let id = try #require(item["id"] as? String)
        let refused = try await client.admin("POST", "/v1/admin/deliveries/\(id)/redeliver")
        #expect(refused.status == 409)
        #expect(refused.object["type"] as? String == "https://formhouse.dev/problems/endpoint-disabled")
        #expect((refused.object["detail"] as? String)?.contains("410 Gone") == true)
        #expect(try await Self.deliveries(client, "status=dead").first?["status"] as? String == "dead")
        await server.finish()
    }

    @Test func rotationSignsWithBothSecrets() async throws {
        let server = try await InProcessServer()
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        let receiver = try LoopbackReceiver { _ in ReceiverReply(status: 200) }
        defer { receiver.stop() }
        let created = try await client.admin("POST", "/v1/admin/forms/signup/webhooks", json: #"{"url": "\#(receiver.url)"}"#)
        let old = try #require(created.object["secret"] as? String)
        let wid = try #require(created.object["id"] as? String)
        let rotated = try await client.admin("POST", "/v1/admin/webhooks/\(wid)/rotate")
        #expect(rotated.status == 200)
        let new = try #require(rotated.object["secret"] as? String)
        #expect(new != old)
        #expect(rotated.object["previousSecretExpiresAt"] is String)

        #expect(try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues).status == 201)
        try await Self.wait("the delivery") { receiver.count >= 1 }
        let request = try #require(receiver.requests.first)
        #expect(request.header("webhook-signature")?.split(separator: " ").count == 2)
        #expect(Self.verify(request, secrets: [old]))
        #expect(Self.verify(request, secrets: [new]))

        #expect(try await client.admin("DELETE", "/v1/admin/webhooks/\(wid)").status == 204)
        #expect(try await client.admin("DELETE", "/v1/admin/webhooks/\(wid)").status == 404)
        #expect(try await client.admin("POST", "/v1/admin/webhooks/\(wid)/rotate").status == 404)
        await server.finish()
    }

    @Test func refusesPrivateAndPlainHTTPDestinationsByDefault() async throws {
        let server = try await InProcessServer { $0.webhookAllowPrivate = false }
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        for url in ["http://example.com/hook", "https://127.0.0.1/hook", "https://localhost/hook", "https://10.0.0.1/hook",
                    "https://[::1]/hook", "https://[::ffff:127.0.0.1]/hook", "https://169.254.169.254/latest", "ftp://example.com/x"] {
            let response = try await client.admin("POST", "/v1/admin/forms/signup/webhooks", json: #"{"url": "\#(url)"}"#)
            #expect(response.status == 422, "\(url) was accepted")
            #expect(response.object["type"] as? String == "https://formhouse.dev/problems/invalid-webhook-url")
        }
        #expect(try await client.admin("POST", "/v1/admin/forms/signup/webhooks", json: #"{"nope": 1}"#).status == 400)
        #expect(try await client.admin("POST", "/v1/admin/forms/missing/webhooks", json: #"{"url": "https://example.com"}"#).status == 404)
        await server.finish()
    }

    /// A form has at most 20 endpoints, also when many creations race: the count is checked in the
    /// insert's transaction (concurrent requests once made 25). A URL with a space or control
    /// character is refused at creation instead of failing every send.
    @Test func twentyEndpointsPerFormEvenUnderConcurrentCreation() async throws {
        let server = try await InProcessServer()
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<40 {
                group.addTask {
                    try await client.admin("POST", "/v1/admin/forms/signup/webhooks",
                                           json: #"{"url": "http://127.0.0.1:9/hook\#(index)"}"#).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 201 }.count == 20)
        #expect(statuses.filter { $0 == 409 }.count == 20)
        let listed = try await client.admin("GET", "/v1/admin/forms/signup/webhooks").object["items"] as? [[String: Any]]
        #expect(listed?.count == 20)
        let refused = try await client.admin("POST", "/v1/admin/forms/signup/webhooks", json: #"{"url": "http://127.0.0.1:9/a"}"#)
        #expect(refused.status == 409)
        #expect(refused.object["type"] as? String == "https://formhouse.dev/problems/too-many-webhooks")
        await server.finish()

        let other = try await InProcessServer()
        #expect(try await other.client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        for url in [#"http://127.0.0.1:9/ok\r\nX-Evil: 1"#, "http://127.0.0.1:9/ok x", #"http://127.0.0.1:9/ok\u0000x"#] {
            let response = try await other.client.admin("POST", "/v1/admin/forms/signup/webhooks", json: #"{"url": "\#(url)"}"#)
            #expect(response.status == 422, "\(url)")
        }
        await other.finish()
    }
}

/// Flips a receiver from failing to healthy.
final class HealthSwitch: Sendable {
    let healthy = Atomic<Bool>(false)
}
