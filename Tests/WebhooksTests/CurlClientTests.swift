import Foundation
import Testing
import WebhookReceiver
import Webhooks

@Suite struct CurlClientTests {
    let open = CurlClient(configuration: .init(policy: AddressPolicy(allowInsecure: true, allowPrivate: true)))

    @Test func postsHeadersAndBodyAndReadsTheAnswer() async throws {
        let receiver = try LoopbackReceiver { _ in ReceiverReply(status: 200, body: Array("thanks".utf8)) }
        defer { receiver.stop() }
        let result = await open.send(OutgoingRequest(
            url: receiver.url + "/hook",
            headers: [("content-type", "application/json"), ("webhook-id", "msg_1")],
            body: Array(#"{"a":1}"#.utf8)))
        #expect(result.status == 200)
        #expect(result.error == nil)
        #expect(result.bodyText == "thanks")
        let request = try #require(receiver.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/hook")
        #expect(request.header("content-type") == "application/json")
        #expect(request.header("webhook-id") == "msg_1")
        #expect(request.header("user-agent") == "Formhouse-Webhooks/1")
        #expect(request.header("expect") == nil)
        #expect(request.body == Array(#"{"a":1}"#.utf8))
    }

    @Test func reusesTheConnectionToAHost() async throws {
        let receiver = try LoopbackReceiver { _ in ReceiverReply(status: 200) }
        defer { receiver.stop() }
        for index in 0..<10 {
            let result = await open.send(OutgoingRequest(url: receiver.url + "/\(index)", body: []))
            #expect(result.status == 200)
        }
        #expect(receiver.count == 10)
        #expect(receiver.connectionsAccepted == 1)
    }

    @Test func reportsErrorStatusesWithRetryAfter() async throws {
        let receiver = try LoopbackReceiver { _ in ReceiverReply(status: 503, headers: [("Retry-After", "7")], body: Array("busy".utf8)) }
        defer { receiver.stop() }
        let result = await open.send(OutgoingRequest(url: receiver.url, body: []))
        #expect(result.status == 503)
        #expect(result.retryAfter == "7")
        #expect(result.bodyText == "busy")
    }

    @Test func doesNotFollowRedirects() async throws {
        let receiver = try LoopbackReceiver { request in
            request.path == "/moved" ? ReceiverReply(status: 302, headers: [("Location", "/target")]) : ReceiverReply(status: 200)
        }
        defer { receiver.stop() }
        let result = await open.send(OutgoingRequest(url: receiver.url + "/moved", body: []))
        #expect(result.status == 302)
        #expect(receiver.requests.map(\.path) == ["/moved"])
    }

    @Test func timesOutASlowReceiver() async throws {
        let client = CurlClient(configuration: .init(policy: AddressPolicy(allowInsecure: true, allowPrivate: true), timeout: .milliseconds(300)))
        let receiver = try LoopbackReceiver { _ in ReceiverReply(status: 200, delay: .seconds(2)) }
        defer { receiver.stop() }
        let result = await client.send(OutgoingRequest(url: receiver.url, body: []))
        #expect(result.status == nil)
        #expect(result.error?.code == .timeout)
    }

    @Test func keepsOnlyABoundedExcerptOfTheResponse() async throws {
        let client = CurlClient(configuration: .init(policy: AddressPolicy(allowInsecure: true, allowPrivate: true), excerptLimit: 1024))
        let receiver = try LoopbackReceiver { _ in ReceiverReply(status: 200, body: Array(repeating: UInt8(ascii: "x"), count: 200_000)) }
        defer { receiver.stop() }
        let result = await client.send(OutgoingRequest(url: receiver.url, body: []))
        #expect(result.status == 200)
        #expect(result.error == nil)
        #expect(result.body.count == 1024)
        #expect(result.bodyTruncated)
    }

    /// A 2xx has been given: a body that then breaks off does not undo the delivery (sending it
    /// again would only duplicate it); any other status that breaks off is a receive failure.
    @Test func aTwoHundredWhoseBodyBreaksOffIsDelivered() async throws {
        for (status, delivered) in [(200, true), (204, true), (503, false)] {
            let receiver = try LoopbackReceiver { _ in
                ReceiverReply(status: status, body: Array(repeating: UInt8(ascii: "x"), count: 100), sentBodyBytes: 7)
            }
            defer { receiver.stop() }
            let result = await open.send(OutgoingRequest(url: receiver.url, body: []))
            #expect(result.status == (delivered ? status : nil), "\(status)")
            #expect(result.error?.code == (delivered ? nil : .receive), "\(status): \(String(describing: result.error))")
        }
    }

    @Test func reportsConnectionFailures() async throws {
        let receiver = try LoopbackReceiver { _ in ReceiverReply(status: 200) }
        let url = receiver.url
        receiver.stop()
        let result = await open.send(OutgoingRequest(url: url, body: []))
        #expect(result.status == nil)
        #expect(result.error?.code == .connect)
    }

    @Test func speaksOnlyHTTPAndHTTPS() async {
        let result = await open.send(OutgoingRequest(url: "file:///etc/passwd", body: []))
        #expect(result.error?.code == .unsupportedProtocol)
        let strict = CurlClient(configuration: .init(policy: AddressPolicy(allowPrivate: true)))
        let insecure = await strict.send(OutgoingRequest(url: "http://127.0.0.1:9/", body: []))
        #expect(insecure.error?.code == .unsupportedProtocol)
    }

    /// URLs that pass validation with private addresses allowed, then meet a client whose policy
    /// forbids them: the check on the address actually connected to refuses, and nothing arrives.
    @Test func refusesForbiddenAddressesWhenConnecting() async throws {
        let v4 = try LoopbackReceiver { _ in ReceiverReply(status: 200) }
        let v6 = try LoopbackReceiver(host: "::1") { _ in ReceiverReply(status: 200) }
        defer { v4.stop(); v6.stop() }
        let guarded = CurlClient(configuration: .init(policy: AddressPolicy(allowInsecure: true)))
        let urls = [v4.url, v6.url, "http://localhost:\(v4.port)/", "http://[::ffff:127.0.0.1]:\(v4.port)/"]
        for url in urls {
            #expect(throws: Never.self) { try AddressPolicy(allowInsecure: true, allowPrivate: true).validate(url: url) }
            let result = await guarded.send(OutgoingRequest(url: url, body: []))
            #expect(result.status == nil, "\(url)")
            #expect(result.error?.code == .forbiddenAddress, "\(url): \(String(describing: result.error))")
            // The attempt log is shown to viewers: no word of what the name resolved to.
            #expect(result.error?.message == "The endpoint's host resolved to an address that is not public; webhooks go only to public addresses.")
            #expect(result.error?.message.contains("127.0.0.1") == false && result.error?.message.contains("::1") == false)
        }
        #expect(v4.count == 0)
        #expect(v6.count == 0)
        let allowed = await open.send(OutgoingRequest(url: v6.url, body: []))
        #expect(allowed.status == 200)
    }

    @Test func carriesHundredsOfTransfersAtOnce() async throws {
        let receiver = try LoopbackReceiver(recording: false) { _ in ReceiverReply(status: 204, delay: .milliseconds(100)) }
        defer { receiver.stop() }
        let statuses = await withTaskGroup(of: Int?.self) { group in
            for index in 0..<300 {
                group.addTask { await open.send(OutgoingRequest(url: receiver.url + "/\(index)", body: Array("\(index)".utf8))).status }
            }
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(statuses.count == 300)
        #expect(statuses.allSatisfy { $0 == 204 })
        #expect(receiver.count == 300)
    }

    @Test func cancellingTheTaskAbortsTheTransfer() async throws {
        let receiver = try LoopbackReceiver { _ in ReceiverReply(status: 200, delay: .seconds(5)) }
        defer { receiver.stop() }
        let task = Task { await open.send(OutgoingRequest(url: receiver.url, body: [])) }
        while receiver.count == 0 { try await Task.sleep(for: .milliseconds(10)) }
        task.cancel()
        let result = await task.value
        #expect(result.error?.code == .cancelled)
    }
}
