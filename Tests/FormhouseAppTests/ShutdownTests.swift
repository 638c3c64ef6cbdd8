import Foundation
@testable import FormhouseApp
import Synchronization
import Testing
import WebhookReceiver

/// SIGTERM stops the listener at once and drains requests and deliveries together. A service group
/// stopped them one after the other: the listener stayed open for the deliveries' 10 s drain, and the
/// two drains added up past the 10 s a container runtime waits before SIGKILL.
@Suite struct ShutdownTests {
    @Test func sigtermClosesTheListenerAtOnceWhileADeliveryDrains() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let arrived = Arrival()
        // Hangs past the server's drain budget (8 s), so the delivery is still in flight throughout.
        let receiver = try LoopbackReceiver(recording: false) { _ in
            arrived.flag.store(true, ordering: .relaxed)
            return ReceiverReply(status: 200, delay: .seconds(10))
        }
        defer { receiver.stop() }
        let server = try ServerProcess(dataDirectory: data.path, extraArguments: ["--allow-private-webhooks"])
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        #expect(try await client.admin("POST", "/v1/admin/forms/signup/webhooks", json: #"{"url": "\#(receiver.url)"}"#).status == 201)
        #expect(try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues).status == 201)
        for _ in 0..<1_000 where !arrived.flag.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(20)) }
        let reached = arrived.flag.load(ordering: .relaxed)
        #expect(reached, "the delivery never reached the receiver")

        kill(server.process.processIdentifier, SIGTERM)
        // Within a few seconds a new request finds nobody listening, while the delivery still drains.
        var refusedWhileDraining = false
        for _ in 0..<250 {
            if (try? await client.get("/healthz")) == nil {
                refusedWhileDraining = server.process.isRunning
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(refusedWhileDraining, "the server took new requests while a delivery drained")
        // Bounded: the drain budget is 8 s; a hang fails the test instead of holding it.
        for _ in 0..<1_500 where server.process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        let exited = !server.process.isRunning
        #expect(exited, "the server did not exit within 30 s of SIGTERM")
        if !exited { server.kill9() }
        server.process.waitUntilExit()
        let status = server.process.terminationStatus
        #expect(status == 0)
    }
}

final class Arrival: Sendable {
    let flag = Atomic<Bool>(false)
}
