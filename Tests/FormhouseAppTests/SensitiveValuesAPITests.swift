import Foundation
@testable import FormhouseApp
import FormEngine
import FormStore
import GRDB
import StoreTestSupport
import Testing
import WebhookReceiver
import Webhooks

/// Sensitive inputs over the real server: their values are sealed in the SQLite file (and in
/// PostgreSQL), kept out of admin lists and exports unless an owner asks, and still reach the
/// submitter, the draft's holder and a real webhook receiver in clear.
@Suite(.serialized) struct SensitiveValuesAPITests {
    static let form = #"""
        {"title": "Vault", "components": [
          {"text": {"id": "name", "title": "Name", "required": true}},
          {"password": {"id": "pin", "title": "PIN"}},
          {"text": {"id": "tax", "title": "Tax id", "sensitive": true}},
          {"group": {"id": "kids", "title": "Kids", "repeat": {"min": 0, "max": 3}, "components": [
            {"text": {"id": "kname", "title": "Name"}},
            {"text": {"id": "ssn", "title": "SSN", "sensitive": true}}]}}
        ]}
        """#
    /// The sensitive values, each spelled so that it occurs nowhere by chance.
    static let pin = "hunter2-PIN-x7Q"
    static let tax = "TAX-55512349"
    static let ssn = "SSN-777-1108"
    static let secrets = [pin, tax, ssn]
    /// Not sensitive: the check that the file search finds what is in clear.
    static let name = "Ana Clearwater"
    static let body = #"{"values": {"name": "\#(name)", "pin": "\#(pin)", "tax": "\#(tax)", "kids": [{"kname": "Bo", "ssn": "\#(ssn)"}]}}"#

    static let viewerToken = "viewer-token-0123456789abcdef"
    static let exporterToken = "exporter-token-0123456789abcd"

    static func server() async throws -> InProcessServer {
        try await InProcessServer { configuration in
            configuration.adminTokens = AdminToken.owners([InProcessServer.token]) + [
                AdminToken(name: "ops", token: viewerToken, role: .viewer),
                AdminToken(name: "export", token: exporterToken, role: .exporter),
            ]
        }
    }

    /// The bytes of the SQLite database and its WAL, as they are on disk.
    static func databaseBytes(_ server: InProcessServer) throws -> [UInt8] {
        let base = server.data.url.appendingPathComponent("formhouse.sqlite").path
        return try [base, base + "-wal"].filter { FileManager.default.fileExists(atPath: $0) }
            .flatMap { [UInt8](try Data(contentsOf: URL(fileURLWithPath: $0))) }
    }

    static func contains(_ haystack: [UInt8], _ text: String) -> Bool {
        TestResponse.find(haystack, Array(text.utf8), from: 0) != nil
    }

    /// Checks, without printing the bytes searched, that none of `texts` is in `bytes`.
    static func expectAbsent(_ texts: [String], from bytes: [UInt8], _ place: String) {
        for text in texts {
            let found = contains(bytes, text)
            #expect(!found, "\(text) is in \(place) in clear")
        }
    }

    static func values(_ response: TestResponse) -> [String: Any] {
        response.object["values"] as? [String: Any] ?? [:]
    }

    @Test func valuesAreSealedInTheFileAndLeftOutOfListsAndExportsUnlessAnOwnerAsks() async throws {
        let server = try await Self.server()
        let client = server.client
        let viewer = TestHTTPClient(port: server.port, token: Self.viewerToken)
        let exporter = TestHTTPClient(port: server.port, token: Self.exporterToken)
        #expect(try await client.admin("PUT", "/v1/admin/forms/vault", json: Self.form).status == 201)
        // A receiver that echoes what it got: its answer's excerpt must not keep the values in clear.
        let receiver = try LoopbackReceiver { request in ReceiverReply(status: 200, body: request.body) }
        defer { receiver.stop() }
        let hook = try await client.admin("POST", "/v1/admin/forms/vault/webhooks", json: #"{"url": "\#(receiver.url)/hook"}"#)
        let secret = try #require(hook.object["secret"] as? String)

        let key = [("Idempotency-Key", "vault-1")]
        let accepted = try await client.postJSON("/v1/forms/vault/submissions", Self.body, headers: key)
        #expect(accepted.status == 201)
        let sid = try #require(accepted.object["id"] as? String)
        for value in Self.secrets { #expect(accepted.text.contains(value), "the submitter's 201 holds \(value)") }

        // The replay answers the first answer byte for byte, opened from what is stored.
        let replay = try await client.postJSON("/v1/forms/vault/submissions", Self.body, headers: key)
        #expect(replay.status == 201)
        #expect(replay.header("Idempotent-Replayed") == "true")
        #expect(replay.body == accepted.body)
        // The digest idempotency keeps of the body is keyed: a plain hash of it, in clear beside the
        // other values, would let a short pin be guessed offline.
        let digest = try #require(try await server.app.store.submission(id: sid)?.bodyHash)
        #expect(digest.hasPrefix("hmac-sha256:") && digest != SubmissionService.hash(Array(Self.body.utf8)))
        #expect(!digest.contains(SubmissionService.hash(Array(Self.body.utf8))))

        // The receiver gets the values in clear, under a signature that verifies.
        try await WebhooksAPITests.wait("the delivery") { receiver.count >= 1 }
        let request = try #require(receiver.requests.first)
        #expect(WebhooksAPITests.verify(request, secrets: [secret]))
        let delivered = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        let data = try #require(delivered["data"] as? [String: Any])
        #expect(data["id"] as? String == sid)
        #expect((data["values"] as? [String: Any])?["pin"] as? String == Self.pin)
        #expect(Self.secrets.allSatisfy { Self.contains(request.body, $0) }, "the receiver got every value")

        // The attempt is recorded without the echo.
        var attempts: [[String: Any]] = []
        try await WebhooksAPITests.wait("the attempt") {
            let listed = try? await client.admin("GET", "/v1/admin/deliveries?formId=vault").object["items"] as? [[String: Any]]
            guard let did = listed?.first?["id"] as? String,
                  let detail = try? await client.admin("GET", "/v1/admin/deliveries/\(did)") else { return false }
            attempts = detail.object["attemptLog"] as? [[String: Any]] ?? []
            return !attempts.isEmpty
        }
        let excerpt = attempts.first?["responseExcerpt"] as? String
        #expect(excerpt == StoreDeliveryQueue.excerptNotKept, "\(attempts)")

        // Nowhere in the database file, though the rest is there in clear.
        let file = try Self.databaseBytes(server)
        let clear = Self.contains(file, Self.name)
        #expect(clear, "the name is in the database file in clear")
        Self.expectAbsent(Self.secrets, from: file, "the database file")

        // Lists and exports leave them out, for every role, unless an owner asks.
        let page = try await client.admin("GET", "/v1/admin/forms/vault/submissions")
        let item = try #require((page.object["items"] as? [[String: Any]])?.first)
        let listed = try #require(item["values"] as? [String: Any])
        #expect(listed["name"] as? String == Self.name)
        #expect(listed["pin"] == nil && listed["tax"] == nil)
        #expect((listed["kids"] as? [[String: Any]])?.first?.keys.sorted() == ["kname"])
        for value in Self.secrets { #expect(!page.text.contains(value)) }
        let one = try await client.admin("GET", "/v1/admin/submissions/\(sid)")
        #expect(one.status == 200)
        #expect(Self.values(one)["name"] as? String == Self.name)
        #expect(Self.values(one)["pin"] == nil)
        for value in Self.secrets { #expect(!one.text.contains(value)) }

        let csv = try await client.admin("GET", "/v1/admin/forms/vault/submissions?format=csv")
        #expect(csv.status == 200)
        #expect(csv.text.split(separator: "\r\n").first == "id,formVersion,receivedAt,name,kids[].kname")
        #expect(csv.text.contains(Self.name))
        let ndjson = try await client.admin("GET", "/v1/admin/forms/vault/submissions?format=ndjson")
        #expect(ndjson.status == 200)
        #expect(ndjson.text.contains(Self.name))
        let exported = try await exporter.admin("GET", "/v1/admin/forms/vault/submissions?format=csv")
        #expect(exported.status == 200)
        for value in Self.secrets {
            #expect(!csv.text.contains(value) && !ndjson.text.contains(value) && !exported.text.contains(value), "\(value) exported")
        }

        // An owner who asks sees them in clear.
        let included = try await client.admin("GET", "/v1/admin/forms/vault/submissions?sensitive=include")
        let includedItem = try #require((included.object["items"] as? [[String: Any]])?.first?["values"] as? [String: Any])
        #expect(includedItem["pin"] as? String == Self.pin)
        #expect(includedItem["tax"] as? String == Self.tax)
        #expect((includedItem["kids"] as? [[String: Any]])?.first?["ssn"] as? String == Self.ssn)
        #expect(Self.values(try await client.admin("GET", "/v1/admin/submissions/\(sid)?sensitive=include"))["pin"] as? String == Self.pin)
        let csvIncluded = try await client.admin("GET", "/v1/admin/forms/vault/submissions?format=csv&sensitive=include")
        #expect(csvIncluded.text.split(separator: "\r\n").first == "id,formVersion,receivedAt,name,pin,tax,kids[].kname,kids[].ssn")
        let ndjsonIncluded = try await client.admin("GET", "/v1/admin/forms/vault/submissions?format=ndjson&sensitive=include")
        for value in Self.secrets {
            #expect(csvIncluded.text.contains(value) && ndjsonIncluded.text.contains(value), "\(value) not in the owner's exports")
        }

        // Anyone else who asks is refused, naming the owner role; so is an unknown value.
        let asks: [(TestHTTPClient, String)] = [
            (viewer, "/v1/admin/forms/vault/submissions?sensitive=include"),
            (viewer, "/v1/admin/submissions/\(sid)?sensitive=include"),
            (viewer, "/v1/admin/submissions/\(sid)/raw?sensitive=include"),
            (exporter, "/v1/admin/forms/vault/submissions?format=csv&sensitive=include"),
        ]
        for (caller, path) in asks {
            let refused = try await caller.admin("GET", path)
            #expect(refused.status == 403, "\(path)")
            #expect(refused.object["type"] as? String == ProblemType.forbidden.uri)
            #expect((refused.object["detail"] as? String)?.contains("an owner") == true, "\(path)")
        }
        #expect(try await client.admin("GET", "/v1/admin/forms/vault/submissions?sensitive=yes").status == 400)

        // The raw body is for an owner who asks, and is then the bytes sent.
        for caller in [client, viewer] {
            let refused = try await caller.admin("GET", "/v1/admin/submissions/\(sid)/raw")
            #expect(refused.status == 403)
            #expect((refused.object["detail"] as? String)?.contains("?sensitive=include") == true)
        }
        let raw = try await client.admin("GET", "/v1/admin/submissions/\(sid)/raw?sensitive=include")
        #expect(raw.status == 200)
        #expect(raw.text == Self.body)
        await server.finish()
    }

    @Test func aDraftHoldingASensitiveValueIsSealedInTheFileAndAnswersItsHolderInClear() async throws {
        let server = try await Self.server()
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/vault", json: Self.form).status == 201)
        let (draft, created) = try await DraftsAPITests.create(client, form: "vault", #"{"values": {"name": "\#(Self.name)", "pin": "\#(Self.pin)"}}"#)
        #expect(Self.values(created)["pin"] as? String == Self.pin)
        // A draft is not validated: a value in the wrong shape for its group is sealed all the same.
        let odd = try await DraftsAPITests.patch(client, draft, #"{"kids": {"ssn": "\#(Self.ssn)"}, "tax": "\#(Self.tax)"}"#)
        #expect(odd.status == 200)
        let file = try Self.databaseBytes(server)
        let stored = Self.contains(file, draft.id)
        #expect(stored, "the draft is in the database file")
        Self.expectAbsent(Self.secrets, from: file, "the database file")
        let patched = try await DraftsAPITests.patch(client, draft, #"{"kids": [{"kname": "Bo", "ssn": "\#(Self.ssn)"}]}"#)
        #expect(patched.status == 200)

        let read = try await DraftsAPITests.call(client, "GET", "/v1/drafts/\(draft.id)", token: draft.token)
        #expect(read.status == 200)
        #expect(Self.values(read)["pin"] as? String == Self.pin)
        #expect(Self.values(read)["tax"] as? String == Self.tax)
        #expect((Self.values(read)["kids"] as? [[String: Any]])?.first?["ssn"] as? String == Self.ssn)

        let submitted = try await DraftsAPITests.call(client, "POST", "/v1/drafts/\(draft.id)/submit", token: draft.token)
        #expect(submitted.status == 201)
        #expect(Self.values(submitted)["pin"] as? String == Self.pin)
        let again = try await DraftsAPITests.call(client, "POST", "/v1/drafts/\(draft.id)/submit", token: draft.token)
        #expect(again.body == submitted.body)
        let sid = try #require(submitted.object["id"] as? String)
        let raw = try await client.admin("GET", "/v1/admin/submissions/\(sid)/raw?sensitive=include")
        #expect(raw.status == 200)
        for value in Self.secrets { #expect(raw.text.contains(value)) }
        let after = try Self.databaseBytes(server)
        Self.expectAbsent(Self.secrets, from: after, "the database file")
        await server.finish()
    }

    @Test func anInputMarkedSensitiveInALaterVersionIsLeftOutOnlyFromThatVersionOn() async throws {
        let server = try await Self.server()
        let client = server.client
        let plain = #"{"title": "T", "components": [{"text": {"id": "name"}}, {"text": {"id": "tax"}}]}"#
        #expect(try await client.admin("PUT", "/v1/admin/forms/later", json: plain).status == 201)
        #expect(try await client.postJSON("/v1/forms/later/submissions", #"{"values": {"name": "one", "tax": "OLD-TAX-1"}}"#).status == 201)
        let marked = #"{"title": "T", "components": [{"text": {"id": "name"}}, {"text": {"id": "tax", "sensitive": true}}]}"#
        #expect(try await client.admin("PUT", "/v1/admin/forms/later", json: marked).status == 200)
        #expect(try await client.postJSON("/v1/forms/later/submissions", #"{"values": {"name": "two", "tax": "NEW-TAX-2"}}"#).status == 201)

        let page = try await client.admin("GET", "/v1/admin/forms/later/submissions")
        let items = try #require(page.object["items"] as? [[String: Any]]).compactMap { $0["values"] as? [String: Any] }
        #expect(items.map { $0["tax"] as? String } == [nil, "OLD-TAX-1"])
        let csv = try await client.admin("GET", "/v1/admin/forms/later/submissions?format=csv")
        let rows = csv.text.split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).suffix(2).joined(separator: ",") }
        #expect(rows == ["name,tax", "one,OLD-TAX-1", "two,"])
        await server.finish()
    }

    @Test func aSealedValueMovedToAnotherRowDoesNotOpen() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        var server = try await InProcessServer(dataDirectory: data)
        #expect(try await server.client.admin("PUT", "/v1/admin/forms/vault", json: Self.form).status == 201)
        let first = try await server.client.postJSON("/v1/forms/vault/submissions", Self.body)
        let second = try await server.client.postJSON("/v1/forms/vault/submissions", #"{"values": {"name": "Other", "pin": "other-pin"}}"#)
        let (a, b) = (try #require(first.object["id"] as? String), try #require(second.object["id"] as? String))
        await server.stop()

        let database = try DatabaseQueue(path: data.url.appendingPathComponent("formhouse.sqlite").path)
        try await database.write { db in
            try db.execute(sql: #"UPDATE submissions SET "values" = (SELECT "values" FROM submissions WHERE id = ?), raw_body = (SELECT raw_body FROM submissions WHERE id = ?) WHERE id = ?"#,
                           arguments: [a, a, b])
        }
        try database.close()

        server = try await InProcessServer(dataDirectory: data)
        let client = server.client
        #expect(Self.values(try await client.admin("GET", "/v1/admin/submissions/\(a)?sensitive=include"))["pin"] as? String == Self.pin)
        #expect(try await client.admin("GET", "/v1/admin/submissions/\(b)?sensitive=include").status == 500)
        #expect(try await client.admin("GET", "/v1/admin/submissions/\(b)/raw?sensitive=include").status == 500)
        // Without asking, what is shown needs no key.
        #expect(Self.values(try await client.admin("GET", "/v1/admin/submissions/\(b)"))["name"] as? String == Self.name)
        await server.finish()
    }

    @Test func eachSealIsBoundToItsRowAndPart() throws {
        let sensitive = SensitiveValues(secrets: try SecretBox(keyBytes: Array(repeating: 1, count: 32)))
        let definition = try FormDefinition(json: Array(Self.form.utf8))
        let values: JSONValue = ["name": "Ana", "pin": "1234", "kids": [["ssn": "9"]]]
        let sealed = try sensitive.seal(values, rowID: "sub_a", definition: definition)
        #expect(sealed["name"] == "Ana")
        #expect(sealed["pin"]?["$sealed"]?.stringValue?.hasPrefix("v1.") == true)
        Self.expectAbsent(["1234"], from: sealed.serialized(), "the sealed values")
        #expect(try sensitive.open(sealed, rowID: "sub_a", definition: definition) == values)
        #expect(throws: SealedValueUnreadable.self) { try sensitive.open(sealed, rowID: "sub_b", definition: definition) }
        let other = SensitiveValues(secrets: try SecretBox(keyBytes: Array(repeating: 2, count: 32)))
        #expect(throws: SealedValueUnreadable.self) { try other.open(sealed, rowID: "sub_a", definition: definition) }
        #expect(SensitiveValues.redacted(sealed, definition: definition) == ["name": "Ana", "kids": [[:]]])

        let body = Array(#"{"values": {"pin": "1234"}}"#.utf8)
        let whole = try sensitive.sealed(body, .rawBody, rowID: "sub_a")
        #expect(SensitiveValues.isSealed(whole))
        #expect(!SensitiveValues.isSealed(body))
        #expect(try sensitive.opened(whole, .rawBody, rowID: "sub_a") == body)
        #expect(try sensitive.opened(body, .rawBody, rowID: "sub_a") == body)
        #expect(throws: SealedValueUnreadable.self) { try sensitive.opened(whole, .rawBody, rowID: "sub_b") }
        #expect(throws: SealedValueUnreadable.self) { try sensitive.opened(whole, .webhookPayload, rowID: "sub_a") }
    }

    @Test func postgreSQLHoldsThemSealedToo() async throws {
        let cluster = try PostgresTestCluster.shared()
        let url = cluster.url(database: try cluster.freshDatabase().database)
        let server = try await InProcessServer { configuration in
            configuration.databaseURL = url
            configuration.secretKey = MultiNodeTests.secretKey
        }
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/vault", json: Self.form).status == 201)
        let accepted = try await client.postJSON("/v1/forms/vault/submissions", Self.body)
        #expect(accepted.status == 201)
        let sid = try #require(accepted.object["id"] as? String)
        // What `SELECT "values", raw_body` gives back.
        let stored = try #require(try await server.app.store.submission(id: sid))
        #expect(stored.values.contains(Self.name))
        Self.expectAbsent(Self.secrets, from: Array(stored.values.utf8) + stored.rawBody, "the stored row")
        #expect(Self.values(try await client.admin("GET", "/v1/admin/submissions/\(sid)?sensitive=include"))["tax"] as? String == Self.tax)
        await server.finish()
    }
}
