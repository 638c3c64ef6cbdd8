import Foundation
import Synchronization
import Testing
import WebhookReceiver

/// Every admin answer shape, the `/validate` answer and the problem bodies, byte for byte: member
/// order, `null` against an absent member and number text are part of the contract. Ids, times,
/// secrets, cursors and durations vary from run to run and are masked.
@Suite(.serialized) struct AnswerBytesTests {
    /// `response`'s body with what varies between runs replaced by placeholders.
    static func masked(_ response: TestResponse, _ values: [String: String] = [:]) -> String {
        var text = response.text
        for (placeholder, value) in values { text = text.replacingOccurrences(of: value, with: placeholder) }
        text = text.replacing(#/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/#, with: "<time>")
        text = text.replacing(#/whsec_[0-9A-Za-z+\/=]+/#, with: "<secret>")
        text = text.replacing(#/"durationMs":\d+/#, with: #""durationMs":<ms>"#)
        text = text.replacing(#/after \d+ ms/#, with: "after <ms> ms")
        text = text.replacing(#/\b(sub|ep|msg)_[0-9A-Za-z]+/#) { "<\($0.output.1)>" }
        return text
    }

    /// The HTTP server's own problems (no route, wrong method, a path it cannot decode) are written
    /// by the application's writer, so they read exactly like the API's.
    @Test func theServersOwnProblems() async throws {
        let server = try await InProcessServer()
        let client = server.client
        let missing = try await client.send("GET", "/nowhere/x")
        #expect(missing.text == #"{"type":"https://formhouse.dev/problems/not-found","title":"Not Found","status":404,"detail":"No resource at /nowhere/x."}"#)
        let method = try await client.send("DELETE", "/healthz")
        #expect(method.text == #"{"type":"https://formhouse.dev/problems/method-not-allowed","title":"Method Not Allowed","status":405,"detail":"DELETE is not allowed here."}"#)
        let encoding = try await client.send("GET", "/v1/forms/%zz")
        #expect(encoding.text == #"{"type":"https://formhouse.dev/problems/bad-request","title":"Bad Request","status":400,"detail":"Malformed percent-encoding in the path."}"#)
        await server.finish()
    }

    @Test func formAndSubmissionAnswers() async throws {
        let server = try await InProcessServer()
        let client = server.client

        let created = try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup)
        #expect(Self.masked(created) == #"{"id":"signup","version":1,"title":"Sign up","createdAt":"<time>"}"#)
        let updated = try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signupV2)
        #expect(Self.masked(updated) == #"{"id":"signup","version":2,"title":"Sign up","createdAt":"<time>"}"#)

        let forms = try await client.admin("GET", "/v1/admin/forms")
        #expect(Self.masked(forms) == #"{"items":[{"id":"account","title":"Create your account","version":1,"updatedAt":"<time>","submissionCount":0},{"id":"every-type","title":"Every component type","version":1,"updatedAt":"<time>","submissionCount":0},{"id":"formworks-example","title":"Formworks Title","version":1,"updatedAt":"<time>","submissionCount":0},{"id":"household","title":"Household registration","version":1,"updatedAt":"<time>","submissionCount":0},{"id":"signup","title":"Sign up","version":2,"updatedAt":"<time>","submissionCount":0}],"nextCursor":null}"#)
        let firstForm = try await client.admin("GET", "/v1/admin/forms?limit=1")
        let formCursor = try #require(firstForm.object["nextCursor"] as? String)
        #expect(Self.masked(firstForm, ["<cursor>": formCursor])
                == #"{"items":[{"id":"account","title":"Create your account","version":1,"updatedAt":"<time>","submissionCount":0}],"nextCursor":"<cursor>"}"#)

        let versions = try await client.admin("GET", "/v1/admin/forms/signup/versions")
        #expect(Self.masked(versions) == #"{"items":[{"version":1,"title":"Sign up","createdAt":"<time>","contentHash":"4a692e9ba7c5de20404787bbec1145d100352cee734b8ea930598b6ccd876901"},{"version":2,"title":"Sign up","createdAt":"<time>","contentHash":"6edc69f23d375e04051847cb66cc04c4ffb7aca3c095c79f458a4e17735579ad"}],"nextCursor":null}"#)
        let firstVersion = try await client.admin("GET", "/v1/admin/forms/signup/versions?limit=1")
        let versionCursor = try #require(firstVersion.object["nextCursor"] as? String)
        #expect(Self.masked(firstVersion, ["<cursor>": versionCursor])
                == #"{"items":[{"version":1,"title":"Sign up","createdAt":"<time>","contentHash":"4a692e9ba7c5de20404787bbec1145d100352cee734b8ea930598b6ccd876901"}],"nextCursor":"<cursor>"}"#)

        let values = #"{"values": {"name": "Ana \"A\" \\ \u0001", "mail": "ana@example.org", "age": 3.0e1, "address": {"line1": "Rua A, 1"}}}"#
        let accepted = try await client.postJSON("/v1/forms/signup/submissions", values, headers: [("Idempotency-Key", "golden-key")])
        #expect(Self.masked(accepted) == #"{"id":"<sub>","formId":"signup","formVersion":2,"receivedAt":"<time>","values":{"name":"Ana \"A\" \\ \u0001","mail":"ana@example.org","age":30,"address":{"line1":"Rua A, 1"}}}"#)
        let sid = try #require(accepted.object["id"] as? String)
        let replayed = try await client.postJSON("/v1/forms/signup/submissions", values, headers: [("Idempotency-Key", "golden-key")])
        #expect(replayed.body == accepted.body)

        let page = try await client.admin("GET", "/v1/admin/forms/signup/submissions")
        #expect(Self.masked(page) == #"{"items":[{"id":"<sub>","formId":"signup","formVersion":2,"receivedAt":"<time>","values":{"name":"Ana \"A\" \\ \u0001","mail":"ana@example.org","age":30,"address":{"line1":"Rua A, 1"}}}],"nextCursor":null}"#)
        let submission = try await client.admin("GET", "/v1/admin/submissions/\(sid)")
        #expect(Self.masked(submission) == #"{"id":"<sub>","formId":"signup","formVersion":2,"receivedAt":"<time>","values":{"name":"Ana \"A\" \\ \u0001","mail":"ana@example.org","age":30,"address":{"line1":"Rua A, 1"}},"idempotencyKey":"golden-key","clientAddress":"127.0.0.1"}"#)
        let export = try await client.admin("GET", "/v1/admin/forms/signup/submissions?format=ndjson")
        #expect(Self.masked(export) == #"{"id":"<sub>","formId":"signup","formVersion":2,"receivedAt":"<time>","values":{"name":"Ana \"A\" \\ \u0001","mail":"ana@example.org","age":30,"address":{"line1":"Rua A, 1"}}}"# + "\n")

        let valid = try await client.postJSON("/v1/forms/signup/validate", Fixtures.validValues)
        #expect(valid.text == #"{"valid":true,"errors":[]}"#)
        let invalid = try await client.postJSON("/v1/forms/signup/validate", #"{"values": {"name": "", "age": 3}}"#)
        #expect(invalid.text == #"{"valid":false,"errors":[{"field":"name","code":"required","message":"This field is required."},{"field":"mail","code":"required","message":"This field is required."},{"field":"age","code":"minValue","message":"The value must be at least 18."},{"field":"address.line1","code":"required","message":"This field is required."}]}"#)

        let unknown = (0..<1_001).map { #""k\#($0)": 1"# }.joined(separator: ", ")
        let truncated = try await client.postJSON("/v1/forms/signup/validate", #"{"values": {\#(unknown)}}"#)
        #expect(truncated.text.hasPrefix(#"{"valid":false,"errors":[{"field":"#))
        #expect(truncated.text.hasSuffix(#"}],"errorCount":1005,"truncated":true}"#))
        let refused = try await client.postJSON("/v1/forms/signup/submissions", #"{"values": {"name": "", "age": 3}}"#)
        #expect(refused.text == #"{"type":"https://formhouse.dev/problems/validation-failed","title":"Submission is invalid","status":422,"detail":"4 fields did not pass validation.","errors":[{"field":"name","code":"required","message":"This field is required."},{"field":"mail","code":"required","message":"This field is required."},{"field":"age","code":"minValue","message":"The value must be at least 18."},{"field":"address.line1","code":"required","message":"This field is required."}]}"#)
        let malformed = try await client.postJSON("/v1/forms/signup/submissions", #"{"values": {"name": }"#)
        #expect(malformed.text == #"{"type":"https://formhouse.dev/problems/malformed-submission","title":"Bad Request","status":400,"detail":"The body is not valid JSON: unexpected character at byte 20.","offset":20}"#)
        let oldVersion = try await client.postJSON("/v1/forms/signup/submissions", #"{"formVersion": 7, "values": {}}"#)
        #expect(oldVersion.text == #"{"type":"https://formhouse.dev/problems/unknown-form-version","title":"Unknown form version","status":409,"detail":"Form 'signup' has no version 7; the current version is 2.","currentVersion":2}"#)
        let badDefinition = try await client.admin("PUT", "/v1/admin/forms/signup", json: #"{"id": "other", "title": 3}"#)
        #expect(badDefinition.text == #"{"type":"https://formhouse.dev/problems/invalid-definition","title":"Form definition is invalid","status":422,"detail":"3 problems found in the definition.","errors":[{"pointer":"/id","code":"idMismatch","message":"The body's id 'other' differs from the URL's 'signup'; make them equal or leave id out."},{"pointer":"/title","code":"invalidType","message":"\"title\" must be a string, not number."},{"pointer":"/components","code":"missing","message":"\"components\" is required: an array of components."}]}"#)
        let missing = try await client.admin("GET", "/v1/admin/submissions/sub_nothing")
        #expect(missing.text == #"{"type":"https://formhouse.dev/problems/not-found","title":"Not Found","status":404,"detail":"There is no submission 'sub_nothing'."}"#)
        await server.finish()
    }

    @Test func webhookAnswers() async throws {
        let server = try await InProcessServer { $0.webhookRetrySchedule = [0.1] }
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        for id in ["gone", "refused"] {
            let definition = Fixtures.signup.replacingOccurrences(of: "\"signup\"", with: "\"\(id)\"")
            #expect(try await client.admin("PUT", "/v1/admin/forms/\(id)", json: definition).status == 201)
        }
        // Two failed attempts; the redelivery's attempt is held so that the 202 sees the delivery pending.
        let holding = Mutex(false)
        let receiver = try LoopbackReceiver { request in
            if request.path == "/gone" { return ReceiverReply(status: 410) }
            let deadline = Date().addingTimeInterval(8)
            while holding.withLock({ $0 }) && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            return ReceiverReply(status: 500)
        }
        defer { receiver.stop() }
        let url = receiver.url

        let badURL = try await client.admin("POST", "/v1/admin/forms/signup/webhooks", json: #"{"url": "ftp://example.com/x"}"#)
        #expect(badURL.text == #"{"type":"https://formhouse.dev/problems/invalid-webhook-url","title":"Webhook URL refused","status":422,"detail":"insecure_scheme: Webhook URLs must use https or http, not ftp.","errors":[{"pointer":"/url","code":"url","message":"insecure_scheme: Webhook URLs must use https or http, not ftp."}]}"#)
        let endpoint = try await client.admin("POST", "/v1/admin/forms/signup/webhooks", json: #"{"url": "\#(url)/hook"}"#)
        #expect(Self.masked(endpoint, ["<url>": url])
                == #"{"id":"<ep>","formId":"signup","url":"<url>/hook","createdAt":"<time>","disabled":false,"disabledReason":null,"secret":"<secret>"}"#)
        let wid = try #require(endpoint.object["id"] as? String)
        #expect(try await client.admin("POST", "/v1/admin/forms/gone/webhooks", json: #"{"url": "\#(url)/gone"}"#).status == 201)
        // Nothing listens on port 9: attempts with an error and no status.
        #expect(try await client.admin("POST", "/v1/admin/forms/refused/webhooks", json: #"{"url": "http://127.0.0.1:9/x"}"#).status == 201)
        let rotated = try await client.admin("POST", "/v1/admin/webhooks/\(wid)/rotate")
        #expect(Self.masked(rotated, ["<url>": url])
                == #"{"id":"<ep>","formId":"signup","url":"<url>/hook","createdAt":"<time>","disabled":false,"disabledReason":null,"secret":"<secret>","previousSecretExpiresAt":"<time>"}"#)

        #expect(try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues).status == 201)
        #expect(try await client.postJSON("/v1/forms/gone/submissions", Fixtures.validValues).status == 201)
        for _ in 0..<2 { #expect(try await client.postJSON("/v1/forms/refused/submissions", Fixtures.validValues).status == 201) }
        try await WebhooksAPITests.wait("the deliveries to die") {
            try await WebhooksAPITests.deliveries(client, "status=dead").count == 4
        }
        let refused = try await client.admin("GET", "/v1/admin/deliveries?formId=refused&limit=1")
        let cursor = try #require(refused.object["nextCursor"] as? String)
        #expect(Self.masked(refused, ["<cursor>": cursor]) == #"{"items":[{"id":"<msg>","endpointId":"<ep>","url":"http://127.0.0.1:9/x","submissionId":"<sub>","formId":"refused","status":"dead","attempts":2,"nextAttemptAt":null,"lastStatusCode":null,"lastError":"connect: Failed to connect to 127.0.0.1 port 9 after <ms> ms: Couldn't connect to server","createdAt":"<time>"}],"nextCursor":"<cursor>"}"#)
        let refusedID = try #require((refused.object["items"] as? [[String: Any]])?.first?["id"] as? String)
        let refusedDetail = try await client.admin("GET", "/v1/admin/deliveries/\(refusedID)")
        #expect(Self.masked(refusedDetail) == #"{"id":"<msg>","endpointId":"<ep>","url":"http://127.0.0.1:9/x","submissionId":"<sub>","formId":"refused","status":"dead","attempts":2,"nextAttemptAt":null,"lastStatusCode":null,"lastError":"connect: Failed to connect to 127.0.0.1 port 9 after <ms> ms: Couldn't connect to server","createdAt":"<time>","attemptLog":[{"attemptedAt":"<time>","statusCode":null,"durationMs":<ms>,"error":"connect: Failed to connect to 127.0.0.1 port 9 after <ms> ms: Couldn't connect to server","responseExcerpt":null},{"attemptedAt":"<time>","statusCode":null,"durationMs":<ms>,"error":"connect: Failed to connect to 127.0.0.1 port 9 after <ms> ms: Couldn't connect to server","responseExcerpt":null}]}"#)
        let endpoints = try await client.admin("GET", "/v1/admin/forms/gone/webhooks")
        #expect(Self.masked(endpoints, ["<url>": url])
                == #"{"items":[{"id":"<ep>","formId":"gone","url":"<url>/gone","createdAt":"<time>","disabled":true,"disabledReason":"The endpoint answered 410 Gone."}]}"#)
        let dead = try await client.admin("GET", "/v1/admin/deliveries?status=dead&formId=signup")
        #expect(Self.masked(dead, ["<url>": url])
                == #"{"items":[{"id":"<msg>","endpointId":"<ep>","url":"<url>/hook","submissionId":"<sub>","formId":"signup","status":"dead","attempts":2,"nextAttemptAt":null,"lastStatusCode":500,"lastError":null,"createdAt":"<time>"}],"nextCursor":null}"#)
        let did = try #require((dead.object["items"] as? [[String: Any]])?.first?["id"] as? String)
        let detail = try await client.admin("GET", "/v1/admin/deliveries/\(did)")
        #expect(Self.masked(detail, ["<url>": url])
                == #"{"id":"<msg>","endpointId":"<ep>","url":"<url>/hook","submissionId":"<sub>","formId":"signup","status":"dead","attempts":2,"nextAttemptAt":null,"lastStatusCode":500,"lastError":null,"createdAt":"<time>","attemptLog":[{"attemptedAt":"<time>","statusCode":500,"durationMs":<ms>,"error":null,"responseExcerpt":null},{"attemptedAt":"<time>","statusCode":500,"durationMs":<ms>,"error":null,"responseExcerpt":null}]}"#)

        holding.withLock { $0 = true }
        let redelivered = try await client.admin("POST", "/v1/admin/deliveries/\(did)/redeliver")
        #expect(Self.masked(redelivered, ["<url>": url])
                == #"{"id":"<msg>","endpointId":"<ep>","url":"<url>/hook","submissionId":"<sub>","formId":"signup","status":"pending","attempts":2,"nextAttemptAt":"<time>","lastStatusCode":500,"lastError":null,"createdAt":"<time>"}"#)
        holding.withLock { $0 = false }
        await server.finish()
    }
}
