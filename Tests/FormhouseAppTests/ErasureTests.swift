import Foundation
import Testing
@testable import FormhouseApp

/// Forgetting on request, over real sockets: an erased e-mail address is found nowhere afterwards,
/// not in the database file read as bytes, the exports, the files directory or the admin API, while
/// other submissions stay whole and the audit log keeps that it happened.
@Suite struct ErasureTests {
    static let contactForm = #"""
    {"id": "contact", "title": "Contact", "components": [
      {"text": {"id": "name", "title": "Name", "required": true}},
      {"email": {"id": "mail", "title": "E-mail", "required": true}},
      {"file": {"id": "photo", "title": "Photo", "accept": ["image/*"]}},
      {"group": {"id": "guests", "title": "Guests", "repeat": {"min": 0, "max": 5}, "components": [
        {"text": {"id": "mail", "title": "Guest's e-mail"}}]}}
    ]}
    """#

    static let erased = "ana.erasable@example.org"

    static func server() async throws -> InProcessServer {
        let server = try await UploadsAPITests.server()
        #expect(try await server.client.admin("PUT", "/v1/admin/forms/contact", json: contactForm).status == 201)
        // An endpoint that never answers: every delivery stays pending.
        #expect(try await server.client.admin("POST", "/v1/admin/forms/contact/webhooks", json: #"{"url": "http://127.0.0.1:9/hook"}"#).status == 201)
        return server
    }

    static func submit(_ client: TestHTTPClient, name: String, mail: String, guests: [String] = [], photo: Bool = false) async throws -> (id: String, upload: String?) {
        var upload: String?
        if photo {
            let uploaded = try await UploadsAPITests.upload(client, form: "contact", field: "photo", type: "image/png", FileFixtures.png,
                                                            filename: "\(mail).png")
            upload = try #require(uploaded.object["id"] as? String, "\(uploaded.text)")
        }
        let guestList = guests.map { #"{"mail": "\#($0)"}"# }.joined(separator: ",")
        let photoMember = upload.map { #", "photo": "\#($0)""# } ?? ""
        let reply = try await client.postJSON(
            "/v1/forms/contact/submissions", #"{"values": {"name": "\#(name)", "mail": "\#(mail)"\#(photoMember), "guests": [\#(guestList)]}}"#)
        #expect(reply.status == 201, "\(reply.text)")
        return (try #require(reply.object["id"] as? String), upload)
    }

    /// Every file under `directory` whose bytes hold `text`, by path.
    static func files(in directory: URL, holding text: String) -> [String] {
        let needle = Data(text.utf8)
        let paths = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return paths.filter { url in (try? Data(contentsOf: url))?.range(of: needle) != nil }.map(\.lastPathComponent)
    }

    @Test func anErasedAddressIsFoundNowhereAndTheRestStays() async throws {
        let server = try await Self.server()
        let client = server.client
        let first = try await Self.submit(client, name: "Ana", mail: Self.erased, photo: true)
        // The second names her as a guest, in another case: matched with ignoreCase, inside the repeat.
        let second = try await Self.submit(client, name: "Rui", mail: "rui@example.org", guests: ["ANA.Erasable@example.org"], photo: true)
        let kept = try await Self.submit(client, name: "Bia", mail: "bia@example.org", guests: ["carla@example.org"], photo: true)
        // Before: the address is in the database (the check below can find it).
        let database = server.data.url
        #expect(!Self.files(in: database, holding: Self.erased).isEmpty)

        let top = try await client.admin("POST", "/v1/admin/forms/contact/erasure", json: #"{"field": "mail", "equals": "\#(Self.erased)"}"#)
        #expect(top.status == 200, "\(top.text)")
        #expect(top.object["erased"] as? Int == 1)
        #expect(top.object["files"] as? Int == 1)
        #expect(top.object["deliveries"] as? Int == 1)
        let guests = try await client.admin(
            "POST", "/v1/admin/forms/contact/erasure", json: #"{"field": "guests[].mail", "equals": "\#(Self.erased)", "ignoreCase": true}"#)
        #expect(guests.status == 200, "\(guests.text)")
        #expect(guests.object["erased"] as? Int == 1)

        // Nowhere: the database file and its log, the files directory, anything under the data directory.
        #expect(Self.files(in: database, holding: Self.erased).isEmpty, "\(Self.files(in: database, holding: Self.erased))")
        #expect(Self.files(in: database, holding: "ANA.Erasable").isEmpty)
        for format in ["csv", "ndjson", "json"] {
            let export = try await client.admin("GET", "/v1/admin/forms/contact/submissions?format=\(format)")
            #expect(export.status == 200)
            #expect(!export.text.lowercased().contains(Self.erased), "\(format)")
            #expect(export.text.contains("bia@example.org"), "\(format)")
        }
        for id in [first.id, second.id] {
            #expect(try await client.admin("GET", "/v1/admin/submissions/\(id)").status == 404)
            #expect(try await client.admin("GET", "/v1/admin/submissions/\(id)/raw").status == 404)
        }
        for upload in [first.upload, second.upload].compactMap({ $0 }) {
            #expect(try await client.admin("GET", "/v1/admin/files/\(upload)").status == 404)
            #expect(try await server.app.store.upload(id: upload) == nil)
        }
        let deliveries = try await client.admin("GET", "/v1/admin/deliveries?formId=contact").object["items"] as? [[String: Any]] ?? []
        #expect(deliveries.map { $0["submissionId"] as? String } == [kept.id])
        // The rest is whole, its file too.
        let rest = try await client.admin("GET", "/v1/admin/submissions/\(kept.id)")
        #expect(rest.status == 200)
        #expect(try await client.admin("GET", "/v1/admin/files/\(try #require(kept.upload))").body == FileFixtures.png)

        // The audit log says it happened, by whom and on which input, not what was erased.
        let audit = try await client.admin("GET", "/v1/admin/audit?action=submissions.erased")
        let entries = audit.object["items"] as? [[String: Any]] ?? []
        #expect(entries.count == 2)
        #expect(entries.first?["actor"] as? String == "token-1")
        #expect(entries.first?["target"] as? String == "contact")
        #expect((entries.first?["detail"] as? [String: Any])?["field"] as? String == "guests[].mail")
        #expect(!audit.text.lowercased().contains("erasable"))

        // One submission by id.
        #expect(try await client.admin("DELETE", "/v1/admin/submissions/\(kept.id)").status == 204)
        #expect(try await client.admin("DELETE", "/v1/admin/submissions/\(kept.id)").status == 404)
        #expect(try await client.admin("GET", "/v1/admin/files/\(try #require(kept.upload))").status == 404)
        #expect(Self.files(in: database, holding: "bia@example.org").isEmpty)
        let last = try await client.admin("GET", "/v1/admin/audit?limit=1").object["items"] as? [[String: Any]]
        #expect(last?.first?["action"] as? String == "submission.erased")
        #expect(last?.first?["target"] as? String == kept.id)
        #expect(last?.first?["route"] as? String == "DELETE /v1/admin/submissions/{sid}")
        await server.finish()
    }

    /// A sensitive input is sealed at rest, so it is matched once opened, as an owner's export opens it.
    @Test func aSensitiveInputIsMatchedThroughItsSeal() async throws {
        let server = try await Self.server()
        let client = server.client
        let sealedForm = Self.contactForm.replacingOccurrences(
            of: #"{"email": {"id": "mail", "title": "E-mail", "required": true}}"#,
            with: #"{"email": {"id": "mail", "title": "E-mail", "required": true, "sensitive": true}}"#)
        #expect(sealedForm != Self.contactForm)
        #expect(try await client.admin("PUT", "/v1/admin/forms/contact", json: sealedForm).status == 200)
        let sealed = try await Self.submit(client, name: "Ana", mail: Self.erased)
        let other = try await Self.submit(client, name: "Rui", mail: "rui@example.org")
        let answer = try await client.admin("POST", "/v1/admin/forms/contact/erasure", json: #"{"field": "mail", "equals": "\#(Self.erased)"}"#)
        #expect(answer.object["erased"] as? Int == 1, "\(answer.text)")
        #expect(try await client.admin("GET", "/v1/admin/submissions/\(sealed.id)").status == 404)
        #expect(try await client.admin("GET", "/v1/admin/submissions/\(other.id)").status == 200)
        await server.finish()
    }

    /// An input a later version removed still names values stored under it.
    @Test func anInputOfAnEarlierVersionCanBeErasedBy() async throws {
        let server = try await Self.server()
        let client = server.client
        let old = try await Self.submit(client, name: "Ana", mail: Self.erased)
        let withoutMail = #"{"id": "contact", "title": "Contact", "components": [{"text": {"id": "name", "title": "Name"}}]}"#
        #expect(try await client.admin("PUT", "/v1/admin/forms/contact", json: withoutMail).status == 200)
        let answer = try await client.admin("POST", "/v1/admin/forms/contact/erasure", json: #"{"field": "mail", "equals": "\#(Self.erased)"}"#)
        #expect(answer.object["erased"] as? Int == 1, "\(answer.text)")
        #expect(try await client.admin("GET", "/v1/admin/submissions/\(old.id)").status == 404)
        await server.finish()
    }

    @Test func aBadErasureIsRefusedWithItsReason() async throws {
        let server = try await Self.server()
        let client = server.client
        let cases: [(String, String)] = [
            (#"{"field": "mial", "equals": "x"}"#, "has no input 'mial'"),
            (#"{"field": "mail"}"#, "'equals' must be"),
            (#"{"field": "mail", "equals": null}"#, "'equals' must be"),
            (#"{"field": "mail", "equals": "x", "also": 1}"#, "'also' is not a member"),
            (#"{"field": "mail", "equals": "x", "ignoreCase": "yes"}"#, "'ignoreCase' must be"),
            (#"["mail"]"#, "Send {"),
        ]
        for (body, detail) in cases {
            let answer = try await client.admin("POST", "/v1/admin/forms/contact/erasure", json: body)
            #expect(answer.status == 400, "\(body)")
            #expect((answer.object["detail"] as? String)?.contains(detail) == true, "\(body): \(answer.text)")
        }
        #expect(try await client.admin("POST", "/v1/admin/forms/nope/erasure", json: #"{"field": "mail", "equals": "x"}"#).status == 404)
        let none = try await client.admin("POST", "/v1/admin/forms/contact/erasure", json: #"{"field": "mail", "equals": "nobody@example.org"}"#)
        #expect(none.text == #"{"erased":0,"deliveries":0,"files":0}"#)
        #expect((try await client.admin("GET", "/v1/admin/audit?action=submissions.erased").object["items"] as? [Any])?.isEmpty == true)
        await server.finish()
    }
}
