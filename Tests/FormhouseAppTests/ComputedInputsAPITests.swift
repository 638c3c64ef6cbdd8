import Foundation
import FormhouseApp
import Testing
import WebhookReceiver

/// Computed inputs over HTTP: the 201, the stored submission and the webhook carry the computed
/// value in place of the one sent, and `/validate` answers the computed values.
@Suite(.serialized) struct ComputedInputsAPITests {
    static let order = #"""
    {"id": "order", "title": "Order", "components": [
      {"group": {"id": "items", "repeat": {"min": 1, "max": 50}, "components": [
        {"decimal": {"id": "price", "required": true}}, {"integer": {"id": "qty", "required": true}},
        {"decimal": {"id": "total", "formula": "price * qty"}}]}},
      {"decimal": {"id": "grand", "formula": "sum(items[].total)", "maxValue": 100}}]}
    """#

    @Test func theComputedTotalIsStoredAnsweredAndValidated() async throws {
        let server = try await InProcessServer()
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/order", json: Self.order).status == 201)
        let receiver = try LoopbackReceiver { _ in ReceiverReply(status: 204) }
        defer { receiver.stop() }
        #expect(try await client.admin("POST", "/v1/admin/forms/order/webhooks", json: #"{"url": "\#(receiver.url)/hook"}"#).status == 201)
        let body = #"{"values": {"items": [{"price": 0.1, "qty": 3, "total": 99}, {"price": 0.2, "qty": 1}], "grand": 1}}"#
        let accepted = try await client.postJSON("/v1/forms/order/submissions", body)
        #expect(accepted.status == 201)
        #expect(accepted.text.contains(#""values":{"items":[{"price":0.1,"qty":3,"total":0.3},{"price":0.2,"qty":1,"total":0.2}],"grand":0.5}"#), "\(accepted.text)")
        let sid = try #require(accepted.object["id"] as? String)
        let stored = try await client.admin("GET", "/v1/admin/submissions/\(sid)")
        #expect(stored.text.contains(#""grand":0.5"#) && stored.text.contains(#""total":0.3"#), "\(stored.text)")
        try await WebhooksAPITests.wait("the delivery") { receiver.count >= 1 }
        let delivered = String(decoding: try #require(receiver.requests.first).body, as: UTF8.self)
        #expect(delivered.contains(#""total":0.3"#) && delivered.contains(#""grand":0.5"#) && !delivered.contains(#""total":99"#), "\(delivered)")

        let valid = try await client.postJSON("/v1/forms/order/validate", body)
        #expect(valid.text == #"{"valid":true,"computed":{"items[0].total":0.3,"items[1].total":0.2,"grand":0.5},"errors":[]}"#, "\(valid.text)")
        let over = try await client.postJSON("/v1/forms/order/validate", #"{"values": {"items": [{"price": 60, "qty": 2}]}}"#)
        #expect(over.text == #"{"valid":false,"computed":{"items[0].total":120,"grand":120},"errors":[{"field":"grand","code":"maxValue","message":"The value must be at most 100."}]}"#, "\(over.text)")
        #expect(try await client.postJSON("/v1/forms/order/submissions", #"{"values": {"items": [{"price": 60, "qty": 2}]}}"#).status == 422)

        let cycle = #"{"id": "loop", "title": "L", "components": [{"decimal": {"id": "a", "formula": "b"}}, {"decimal": {"id": "b", "formula": "a"}}]}"#
        let refused = try await client.admin("PUT", "/v1/admin/forms/loop", json: cycle)
        #expect(refused.status == 422)
        #expect(refused.text.contains("formulaCycle") && refused.text.contains("/decimal/formula"), "\(refused.text)")
        await server.finish()
    }
}
