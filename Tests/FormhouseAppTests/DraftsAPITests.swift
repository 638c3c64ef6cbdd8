import Foundation
import Testing
import WebhookReceiver
@testable import FormhouseApp

/// Drafts over real sockets and a real SQLite file: created with any subset of values, changed by
/// merge patches guarded by If-Match, submitted once, expired; and the form's statistics they feed.
@Suite struct DraftsAPITests {
    /// Text, a nested group and a repeat, with required inputs to leave out.
    static let trip = #"""
    {"id": "trip", "title": "Trip",
     "components": [
       {"text": {"id": "name", "title": "Name", "required": true}},
       {"email": {"id": "mail", "title": "E-mail", "required": true}},
       {"integer": {"id": "nights", "title": "Nights", "minValue": 1, "maxValue": 30}},
       {"group": {"id": "address", "title": "Address", "components": [
         {"text": {"id": "line1", "title": "Line 1", "required": true}},
         {"text": {"id": "city", "title": "City"}}]}},
       {"group": {"id": "guests", "title": "Guests", "repeat": {"min": 1, "max": 4}, "components": [
         {"text": {"id": "guest", "title": "Guest", "required": true}},
         {"integer": {"id": "age", "title": "Age", "minValue": 0}}]}}
     ]}
    """#

    static let completeTrip = #"{"values": {"name": "Ana", "mail": "ana@example.org", "address": {"line1": "Rua A"}, "guests": [{"guest": "Bia"}]}}"#

    static func server(_ configure: (inout AppConfiguration) -> Void = { _ in }) async throws -> InProcessServer {
        let server = try await InProcessServer(configure: configure)
        let saved = try await server.client.admin("PUT", "/v1/admin/forms/trip", json: trip)
        #expect(saved.status == 201, "\(saved.text)")
        return server
    }

    /// A draft as created: its id and token.
    struct Opened {
        var id: String
        var token: String
    }

    static func create(_ client: TestHTTPClient, form: String = "trip", _ body: String = "") async throws -> (Opened, TestResponse) {
        let reply = try await client.send("POST", "/v1/forms/\(form)/drafts",
                                          headers: body.isEmpty ? [] : [("Content-Type", "application/json")], body: Array(body.utf8))
        #expect(reply.status == 201, "\(reply.text)")
        return (Opened(id: reply.object["id"] as? String ?? "", token: reply.object["token"] as? String ?? ""), reply)
    }

    static func patch(_ client: TestHTTPClient, _ draft: Opened, _ patch: String, ifMatch: String? = nil,
                      type: String = "application/merge-patch+json") async throws -> TestResponse {
        var headers = [("Authorization", "Bearer \(draft.token)"), ("Content-Type", type)]
        if let ifMatch { headers.append(("If-Match", ifMatch)) }
        return try await client.send("PATCH", "/v1/drafts/\(draft.id)", headers: headers, body: Array(patch.utf8))
    }

    static func call(_ client: TestHTTPClient, _ method: String, _ path: String, token: String?) async throws -> TestResponse {
        try await client.send(method, path, headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [])
    }

    static func errors(_ reply: TestResponse) -> [String] {
        (reply.object["errors"] as? [[String: Any]] ?? []).map { "\($0["field"] ?? "")/\($0["code"] ?? "")" }.sorted()
    }

    static func json(_ text: String) -> NSDictionary {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? NSDictionary ?? [:]
    }

    @Test func aDraftIsCreatedWithAnySubsetAndListsOnlyTheErrorsOfItsAnswers() async throws {
        let server = try await Self.server()
        let client = server.client
        // Nothing at all: no errors, though name, mail, address.line1 and a guest are required.
        let (empty, emptyReply) = try await Self.create(client)
        #expect(empty.id.hasPrefix("drf_"))
        #expect(empty.token.hasPrefix("dft_") && empty.token.count >= 4 + 43, "at least 128 bits")
        #expect(emptyReply.object["revision"] as? Int == 1)
        #expect(emptyReply.object["formVersion"] as? Int == 1)
        #expect(Self.errors(emptyReply).isEmpty)
        #expect(emptyReply.header("ETag") == "\"1\"")
        #expect(emptyReply.header("Location") == "/v1/drafts/\(empty.id)")
        #expect(emptyReply.header("Cache-Control") == "no-store")
        #expect(emptyReply.object["submissionId"] is NSNull)

        // A present but invalid answer is an error; absent required ones are not.
        let (_, some) = try await Self.create(client, #"{"values": {"mail": "not-an-address", "nights": 40, "guests": [{"age": 3}]}}"#)
        #expect(Self.errors(some) == ["mail/email", "nights/maxValue"])

        // The token is shown once: reading the draft does not give it back.
        let read = try await Self.call(client, "GET", "/v1/drafts/\(empty.id)", token: empty.token)
        #expect(read.status == 200, "\(read.text)")
        #expect(read.object["token"] == nil)
        #expect(read.header("ETag") == "\"1\"")

        // Unknown form, bad JSON, a values member that is no object.
        #expect(try await client.postJSON("/v1/forms/nowhere/drafts", "{}").status == 404)
        #expect(try await client.postJSON("/v1/forms/trip/drafts", "{").status == 400)
        #expect(try await client.postJSON("/v1/forms/trip/drafts", #"{"values": 3}"#).status == 400)
        await server.finish()
    }

    @Test func mergePatchesSetRemoveAndNestAsRFC7396Says() async throws {
        let server = try await Self.server()
        let client = server.client
        let (draft, _) = try await Self.create(client, #"{"values": {"name": "Ana", "address": {"line1": "Rua A", "city": "Recife"}, "guests": [{"guest": "Bia"}]}}"#)

        var reply = try await Self.patch(client, draft, #"{"mail": "ana@example.org", "address": {"city": null}}"#)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.object["revision"] as? Int == 2)
        #expect(reply.header("ETag") == "\"2\"")
        #expect(reply.object["values"] as? NSDictionary == Self.json(
            #"{"name": "Ana", "address": {"line1": "Rua A"}, "guests": [{"guest": "Bia"}], "mail": "ana@example.org"}"#))

        // An array is replaced whole; null removes a member; an invalid answer in a repeat item is listed.
        reply = try await Self.patch(client, draft, #"{"name": null, "guests": [{"guest": "Bia", "age": -1}, {"guest": "Caio"}]}"#, ifMatch: "\"2\"")
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.object["values"] as? NSDictionary == Self.json(
            #"{"address": {"line1": "Rua A"}, "guests": [{"guest": "Bia", "age": -1}, {"guest": "Caio"}], "mail": "ana@example.org"}"#))
        #expect(Self.errors(reply) == ["guests[0].age/minValue"])

        // What was saved is what a reader on another device gets.
        let read = try await Self.call(client, "GET", "/v1/drafts/\(draft.id)", token: draft.token)
        #expect(read.object["values"] as? NSDictionary == reply.object["values"] as? NSDictionary)
        #expect(read.object["revision"] as? Int == 3)

        // A patch that is not an object replaces the values, which must stay an object.
        #expect(try await Self.patch(client, draft, "[1]").status == 400)
        #expect(try await Self.patch(client, draft, "{").status == 400)
        let plain = try await Self.patch(client, draft, "{}", type: "application/json")
        #expect(plain.status == 415)
        #expect(plain.header("Accept-Patch") == "application/merge-patch+json")
        // An empty or parameter-only Content-Type is refused like any other, and the server goes on.
        for type in ["", ";", " ; charset=utf-8"] {
            #expect(try await Self.patch(client, draft, "{}", type: type).status == 415)
        }
        #expect(try await Self.call(client, "GET", "/v1/drafts/\(draft.id)", token: draft.token).status == 200)
        await server.finish()
    }

    @Test func twoDevicesCannotOverwriteEachOther() async throws {
        let server = try await Self.server()
        let client = server.client
        let (draft, _) = try await Self.create(client, #"{"values": {"name": "Ana"}}"#)
        // Both read revision 1; the phone saves first.
        let phone = try await Self.patch(client, draft, #"{"mail": "ana@phone.example"}"#, ifMatch: "\"1\"")
        #expect(phone.status == 200)
        let laptop = try await Self.patch(client, draft, #"{"mail": "ana@laptop.example"}"#, ifMatch: "\"1\"")
        #expect(laptop.status == 412, "\(laptop.text)")
        #expect(laptop.object["currentRevision"] as? Int == 2)
        #expect(laptop.header("ETag") == "\"2\"")
        #expect(laptop.header("Content-Type") == "application/problem+json")
        let kept = try await Self.call(client, "GET", "/v1/drafts/\(draft.id)", token: draft.token)
        #expect((kept.object["values"] as? [String: Any])?["mail"] as? String == "ana@phone.example")

        // Racing: of eight patches from revision 2, exactly one lands.
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<8 {
                group.addTask { try await Self.patch(client, draft, #"{"nights": \#(index + 1)}"#, ifMatch: "\"2\"").status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.sorted() == [200] + Array(repeating: 412, count: 7))
        let after = try await Self.call(client, "GET", "/v1/drafts/\(draft.id)", token: draft.token)
        #expect(after.object["revision"] as? Int == 3)

        // A weak tag never matches (If-Match compares strongly); `*` matches any revision. A refusal
        // names the revision to go on from.
        let weak = try await Self.patch(client, draft, #"{"nights": 2}"#, ifMatch: "W/\"3\"")
        #expect(weak.status == 412)
        #expect(weak.object["currentRevision"] as? Int == 3)
        #expect(weak.header("ETag") == "\"3\"")
        let garbled = try await Self.patch(client, draft, #"{"nights": 2}"#, ifMatch: "3")
        #expect(garbled.status == 412)
        #expect(garbled.object["currentRevision"] as? Int == 3)
        #expect(try await Self.patch(client, draft, #"{"nights": 2}"#, ifMatch: "*").status == 200)
        await server.finish()
    }

    @Test func patchesWithoutIfMatchMergeWithWhatLandedMeanwhile() async throws {
        let server = try await Self.server()
        let client = server.client
        let (draft, _) = try await Self.create(client)
        // Four devices at once, none with If-Match: each change is applied to what the others stored.
        let patches = [#"{"name": "Ana"}"#, #"{"mail": "ana@example.org"}"#, #"{"nights": 3}"#, #"{"address": {"city": "Recife"}}"#]
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for patch in patches { group.addTask { try await Self.patch(client, draft, patch).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == [200, 200, 200, 200])
        let read = try await Self.call(client, "GET", "/v1/drafts/\(draft.id)", token: draft.token)
        #expect(read.object["revision"] as? Int == 5)
        let values = read.object["values"] as? NSDictionary
        #expect(values?["name"] as? String == "Ana" && values?["mail"] as? String == "ana@example.org")
        #expect(values?["nights"] as? Int == 3 && (values?["address"] as? [String: Any])?["city"] as? String == "Recife")
        await server.finish()
    }

    @Test func anOfflineChainOfPatchesAppliesInOrder() async throws {
        let server = try await Self.server()
        let client = server.client
        let (draft, _) = try await Self.create(client)
        // Queued offline, sent on reconnect: each If-Match is the revision the one before answered.
        var revision = 1
        for patch in [#"{"name": "Ana"}"#, #"{"mail": "ana@example.org"}"#, #"{"name": "Ana Lima", "nights": 3}"#] {
            let reply = try await Self.patch(client, draft, patch, ifMatch: "\"\(revision)\"")
            #expect(reply.status == 200, "\(reply.text)")
            revision = reply.object["revision"] as? Int ?? 0
        }
        #expect(revision == 4)
        let read = try await Self.call(client, "GET", "/v1/drafts/\(draft.id)", token: draft.token)
        #expect(read.object["values"] as? NSDictionary == Self.json(#"{"name": "Ana Lima", "mail": "ana@example.org", "nights": 3}"#))
        await server.finish()
    }

    @Test func submitStoresDeliversClosesAndReplays() async throws {
        let server = try await Self.server()
        let client = server.client
        let receiver = try LoopbackReceiver { _ in ReceiverReply(status: 204) }
        defer { receiver.stop() }
        #expect(try await client.admin("POST", "/v1/admin/forms/trip/webhooks", json: #"{"url": "\#(receiver.url)/hook"}"#).status == 201)

        let (draft, _) = try await Self.create(client, #"{"values": {"name": "Ana", "guests": [{"guest": "Bia"}]}}"#)
        // Missing required inputs: 422 with every error, judged in full, and the draft kept.
        let refused = try await Self.call(client, "POST", "/v1/drafts/\(draft.id)/submit", token: draft.token)
        #expect(refused.status == 422, "\(refused.text)")
        #expect(Self.errors(refused) == ["address.line1/required", "mail/required"])
        #expect(try await Self.call(client, "GET", "/v1/drafts/\(draft.id)", token: draft.token).status == 200)

        #expect(try await Self.patch(client, draft, #"{"mail": "ana@example.org", "address": {"line1": "Rua A"}}"#).status == 200)
        let submitted = try await Self.call(client, "POST", "/v1/drafts/\(draft.id)/submit", token: draft.token)
        #expect(submitted.status == 201, "\(submitted.text)")
        let submissionID = try #require(submitted.object["id"] as? String)
        #expect(submitted.object["formVersion"] as? Int == 1)
        #expect((submitted.object["values"] as? [String: Any])?["mail"] as? String == "ana@example.org")

        // Stored as POST /submissions stores one: listed, with its raw body, and delivered.
        let stored = try await client.admin("GET", "/v1/admin/submissions/\(submissionID)")
        #expect(stored.status == 200)
        let raw = try await client.admin("GET", "/v1/admin/submissions/\(submissionID)/raw")
        #expect(Self.json(raw.text)["formVersion"] as? Int == 1)
        try await WebhooksAPITests.wait("the delivery") { receiver.count >= 1 }
        let delivered = try JSONSerialization.jsonObject(with: Data(try #require(receiver.requests.first).body)) as? [String: Any]
        #expect((delivered?["data"] as? [String: Any])?["id"] as? String == submissionID)

        // Closed: it names its submission and takes no more changes; submitting again answers the same 201.
        let closed = try await Self.call(client, "GET", "/v1/drafts/\(draft.id)", token: draft.token)
        #expect(closed.object["submissionId"] as? String == submissionID)
        let late = try await Self.patch(client, draft, #"{"nights": 2}"#)
        #expect(late.status == 409)
        #expect(late.object["type"] as? String == "https://formhouse.dev/problems/draft-submitted")
        let again = try await Self.call(client, "POST", "/v1/drafts/\(draft.id)/submit", token: draft.token)
        #expect(again.status == 201)
        #expect(again.body == submitted.body)
        #expect(again.header("Idempotent-Replayed") == "true")
        let page = try await client.admin("GET", "/v1/admin/forms/trip/submissions")
        #expect((page.object["items"] as? [Any])?.count == 1)
        try await Task.sleep(for: .milliseconds(200))
        #expect(receiver.count == 1, "a replay delivers nothing more")
        await server.finish()
    }

    @Test func concurrentSubmitsOfOneDraftStoreOneSubmission() async throws {
        let server = try await Self.server()
        let client = server.client
        let (draft, _) = try await Self.create(client, Self.completeTrip)
        let answers = try await withThrowingTaskGroup(of: TestResponse.self) { group in
            for _ in 0..<8 { group.addTask { try await Self.call(client, "POST", "/v1/drafts/\(draft.id)/submit", token: draft.token) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0.status == 201 }, "\(answers.map(\.text))")
        #expect(Set(answers.map(\.text)).count == 1, "every answer names the one submission")
        let page = try await client.admin("GET", "/v1/admin/forms/trip/submissions")
        #expect((page.object["items"] as? [Any])?.count == 1)
        await server.finish()
    }

    @Test func aChangeRacingASubmitIsEitherSubmittedOrRefused() async throws {
        let server = try await Self.server()
        let client = server.client
        for round in 0..<12 {
            let (draft, _) = try await Self.create(client, Self.completeTrip)
            async let changed = Self.patch(client, draft, #"{"name": "Changed \#(round)"}"#)
            async let submitted = Self.call(client, "POST", "/v1/drafts/\(draft.id)/submit", token: draft.token)
            let (change, submit) = try await (changed, submitted)
            #expect(submit.status == 201, "\(submit.text)")
            #expect([200, 409].contains(change.status), "\(change.text)")
            // What the draft holds when closed is what was submitted: a 200 never goes missing.
            let closed = try await Self.call(client, "GET", "/v1/drafts/\(draft.id)", token: draft.token)
            let final = (closed.object["values"] as? [String: Any])?["name"] as? String
            #expect((submit.object["values"] as? [String: Any])?["name"] as? String == final)
            #expect(final == (change.status == 200 ? "Changed \(round)" : "Ana"))
        }
        await server.finish()
    }

    @Test func aDraftOfAnOlderVersionSubmitsAgainstIt() async throws {
        let server = try await Self.server()
        let client = server.client
        let (draft, _) = try await Self.create(client, Self.completeTrip)
        // Version 2 makes nights required; the draft was started on version 1, which did not.
        let v2 = Self.trip.replacingOccurrences(of: #""title": "Nights","#, with: #""title": "Nights", "required": true,"#)
        #expect(try await client.admin("PUT", "/v1/admin/forms/trip", json: v2).status == 200)
        // A client that cached version 1 may also start a draft on it.
        let (cached, cachedReply) = try await Self.create(client, #"{"formVersion": 1, "values": {}}"#)
        #expect(cachedReply.object["formVersion"] as? Int == 1)
        #expect(try await Self.call(client, "DELETE", "/v1/drafts/\(cached.id)", token: cached.token).status == 204)

        let submitted = try await Self.call(client, "POST", "/v1/drafts/\(draft.id)/submit", token: draft.token)
        #expect(submitted.status == 201, "\(submitted.text)")
        #expect(submitted.object["formVersion"] as? Int == 1)
        #expect(try await client.postJSON("/v1/forms/trip/drafts", #"{"formVersion": 9}"#).status == 409)
        await server.finish()
    }

    @Test func aWrongTokenIsIndistinguishableFromAnUnknownDraft() async throws {
        let server = try await Self.server()
        let client = server.client
        let (draft, _) = try await Self.create(client, #"{"values": {"name": "Ana"}}"#)
        let unknown = "drf_" + String(draft.id.dropFirst(4).reversed())
        let wrong = "dft_" + String(repeating: "A", count: 43)

        func answer(_ id: String, _ token: String?, _ method: String = "GET", _ suffix: String = "") async throws -> (Int, String) {
            let reply = try await Self.call(client, method, "/v1/drafts/\(id)\(suffix)", token: token)
            // The id is the only difference a caller may see: it is the one they sent.
            return (reply.status, reply.text.replacingOccurrences(of: id, with: "ID"))
        }
        for (method, suffix) in [("GET", ""), ("DELETE", ""), ("POST", "/submit")] {
            let baseline = try await answer(unknown, draft.token, method, suffix)
            #expect(baseline.0 == 404)
            #expect(try await answer(draft.id, wrong, method, suffix) == baseline)
            #expect(try await answer(draft.id, nil, method, suffix) == baseline)
            #expect(try await answer(draft.id, String(draft.token.dropLast()), method, suffix) == baseline)
            #expect(try await answer(unknown, wrong, method, suffix) == baseline)
        }
        let baseline = try await answer(unknown, draft.token)
        let patched = try await Self.patch(client, Opened(id: draft.id, token: wrong), #"{"name": "Eve"}"#)
        #expect((patched.status, patched.text.replacingOccurrences(of: draft.id, with: "ID")) == baseline)

        // Timing class, measured in the process, where the lookup is most of the work: a path that
        // skipped it for an unknown draft would take a small fraction (a twentieth) of what a wrong token
        // takes. Samples alternate, so that the machine's load weighs on both alike.
        let drafts = server.app.drafts
        var samples: [[Double]] = [[], []]
        for _ in 0..<300 {
            for (side, id) in [draft.id, unknown].enumerated() {
                let start = ContinuousClock.now
                _ = try? await drafts.read(id: id, token: wrong, clientAddress: "127.0.0.1")
                let elapsed = ContinuousClock.now - start
                samples[side].append(Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds))
            }
        }
        let medians = samples.map { $0.sorted()[$0.count / 2] }
        #expect(max(medians[0], medians[1]) / min(medians[0], medians[1]) < 5, "medians \(medians) s")

        // The right token still opens it: nothing above changed it.
        let read = try await Self.call(client, "GET", "/v1/drafts/\(draft.id)", token: draft.token)
        #expect(read.status == 200)
        #expect((read.object["values"] as? [String: Any])?["name"] as? String == "Ana")
        await server.finish()
    }

    @Test func draftsExpireAndAreSweptWithTheirUploads() async throws {
        let server = try await InProcessServer { configuration in
            configuration.uploadMinFreeBytes = 0
            configuration.draftTTLDays = 1
            configuration.uploadKeepUnboundHours = 2
        }
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/claim", json: FileFixtures.claimForm).status == 201)
        let uploaded = try await UploadsAPITests.upload(client, field: "photo", type: "image/jpeg", FileFixtures.jpeg)
        let upload = try #require(uploaded.object["id"] as? String)
        let (draft, created) = try await Self.create(client, form: "claim", #"{"values": {"name": "Ana", "photo": "\#(upload)"}}"#)
        #expect(Self.errors(created).isEmpty, "\(created.text)")
        // The draft keeps its upload past the upload's own 24 hours.
        let expiresAt = try #require(created.object["expiresAt"] as? String)
        let kept = try #require(try await server.app.store.upload(id: upload))
        #expect(Timestamp.rfc3339(kept.expiresAt) == expiresAt)

        // A day and a minute later the draft answers 404, and the sweep removes it, then its upload and bytes.
        let later = Date().addingTimeInterval(86_400 + 60)
        #expect(try await server.app.sweeper.sweepOnce(now: later) == 1, "the upload the draft left")
        #expect(try await Self.call(client, "GET", "/v1/drafts/\(draft.id)", token: draft.token).status == 404)
        #expect(try await server.app.store.draft(id: draft.id) == nil)
        #expect(try await server.app.store.upload(id: upload) == nil)
        #expect(try await client.admin("GET", "/v1/admin/files/\(upload)").status == 404)

        // An upload a change no longer names waits as any unbound upload does, no longer as long as the draft.
        let third = try await UploadsAPITests.upload(client, field: "photo", type: "image/jpeg", FileFixtures.jpeg)
        let thirdID = try #require(third.object["id"] as? String)
        let (holder, _) = try await Self.create(client, form: "claim", #"{"values": {"photo": "\#(thirdID)"}}"#)
        let held = try #require(try await server.app.store.upload(id: thirdID)).expiresAt
        #expect(try await Self.patch(client, holder, #"{"photo": null}"#).status == 200)
        let released = try #require(try await server.app.store.upload(id: thirdID)).expiresAt
        #expect(released < held)
        #expect(abs(released.timeIntervalSinceNow - 2 * 3_600) < 60)

        // Deleting a draft lets its uploads go too.
        let second = try await UploadsAPITests.upload(client, field: "photo", type: "image/jpeg", FileFixtures.jpeg)
        let secondID = try #require(second.object["id"] as? String)
        let (other, _) = try await Self.create(client, form: "claim", #"{"values": {"photo": "\#(secondID)"}}"#)
        #expect(try await Self.call(client, "DELETE", "/v1/drafts/\(other.id)", token: other.token).status == 204)
        #expect(try await Self.call(client, "DELETE", "/v1/drafts/\(other.id)", token: other.token).status == 404)
        #expect(try await server.app.sweeper.sweepOnce(now: Date().addingTimeInterval(1)) == 1)
        #expect(try await server.app.store.upload(id: secondID) == nil)
        await server.finish()
    }

    @Test func aDraftWithAFileSubmitsAndBindsIt() async throws {
        let server = try await UploadsAPITests.server()
        let client = server.client
        let uploaded = try await UploadsAPITests.upload(client, field: "photo", type: "image/jpeg", FileFixtures.jpeg, filename: "me.jpg")
        let upload = try #require(uploaded.object["id"] as? String)
        let (draft, _) = try await Self.create(client, form: "claim", #"{"values": {"photo": "\#(upload)"}}"#)
        #expect(try await Self.patch(client, draft, #"{"name": "Ana"}"#).status == 200)
        let submitted = try await Self.call(client, "POST", "/v1/drafts/\(draft.id)/submit", token: draft.token)
        #expect(submitted.status == 201, "\(submitted.text)")
        let photo = (submitted.object["values"] as? [String: Any])?["photo"] as? [String: Any]
        #expect(photo?["sha256"] as? String == FileFixtures.sha256Hex(FileFixtures.jpeg))
        #expect(try await server.app.store.upload(id: upload)?.submissionID == submitted.object["id"] as? String)
        await server.finish()
    }

    @Test func anUploadADraftNamesCanBeTakenByAnotherSubmissionFirst() async throws {
        let server = try await UploadsAPITests.server()
        let client = server.client
        let uploaded = try await UploadsAPITests.upload(client, field: "photo", type: "image/jpeg", FileFixtures.jpeg)
        let upload = try #require(uploaded.object["id"] as? String)
        let (draft, _) = try await Self.create(client, form: "claim", #"{"values": {"name": "Ana", "photo": "\#(upload)"}}"#)
        // A submission that names the upload directly binds it: a draft ties an upload, it does not own it.
        let direct = try await client.postJSON("/v1/forms/claim/submissions", #"{"values": {"photo": "\#(upload)"}}"#)
        #expect(direct.status == 201, "\(direct.text)")
        // The draft now names a file of another submission: its submit is refused on that input, and kept.
        let refused = try await Self.call(client, "POST", "/v1/drafts/\(draft.id)/submit", token: draft.token)
        #expect(refused.status == 422, "\(refused.text)")
        #expect(Self.errors(refused) == ["photo/file"])
        let read = try await Self.call(client, "GET", "/v1/drafts/\(draft.id)", token: draft.token)
        #expect(Self.errors(read) == ["photo/file"])
        #expect(try await server.app.store.upload(id: upload)?.submissionID == direct.object["id"] as? String)
        await server.finish()
    }

    @Test func limitsOnDraftsPerClientRevisionsAndSize() async throws {
        let server = try await Self.server { configuration in
            configuration.draftMaxPerClientPerHour = 3
            configuration.draftMaxRevisions = 3
            configuration.maxBodyBytes = 4_096
        }
        let client = server.client
        // Values grow by patches, each small, but never past what a submission may hold.
        let (draft, _) = try await Self.create(client)
        let half = String(repeating: "x", count: 2_500)
        #expect(try await Self.patch(client, draft, #"{"name": "\#(half)"}"#).status == 200)
        let grown = try await Self.patch(client, draft, #"{"address": {"city": "\#(half)"}}"#)
        #expect(grown.status == 400, "\(grown.text)")
        #expect(grown.object["type"] as? String == "https://formhouse.dev/problems/draft-too-large")

        _ = try await Self.create(client)
        _ = try await Self.create(client)
        let fourth = try await client.postJSON("/v1/forms/trip/drafts", "{}")
        #expect(fourth.status == 429)
        #expect(fourth.object["type"] as? String == "https://formhouse.dev/problems/too-many-drafts")
        #expect(fourth.header("Retry-After") != nil)

        // One change taken; the limit of 3 takes two more.
        #expect(try await Self.patch(client, draft, #"{"name": "B"}"#).status == 200)
        #expect(try await Self.patch(client, draft, #"{"name": "C"}"#).status == 200)
        let past = try await Self.patch(client, draft, #"{"name": "D"}"#)
        #expect(past.status == 409)
        #expect(past.object["type"] as? String == "https://formhouse.dev/problems/draft-revision-limit")
        // It can still be read and submitted (here refused for its missing answers, and kept).
        #expect(try await Self.call(client, "POST", "/v1/drafts/\(draft.id)/submit", token: draft.token).status == 422)
        await server.finish()
    }
}
