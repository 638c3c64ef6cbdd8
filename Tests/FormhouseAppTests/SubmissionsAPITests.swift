import Foundation
import FormhouseApp
import Testing

/// Submissions over HTTP: every body shape, every error status, idempotency, paging and export.
@Suite(.serialized) struct SubmissionsAPITests {
    func server(_ configure: (inout FormhouseApp.AppConfiguration) -> Void = { _ in }) async throws -> InProcessServer {
        let server = try await InProcessServer(configure: configure)
        #expect(try await server.client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        return server
    }

    @Test func acceptsAllThreeShapes() async throws {
        let server = try await server()
        let client = server.client
        let values = try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues)
        #expect(values.status == 201)
        #expect((values.object["id"] as? String)?.hasPrefix("sub_") == true)
        #expect(values.object["formId"] as? String == "signup")
        #expect(values.object["formVersion"] as? Int == 1)
        #expect(values.object["receivedAt"] is String)
        let stored = values.object["values"] as? [String: Any]
        #expect(stored?["age"] as? Int == 30)
        #expect((stored?["address"] as? [String: Any])?["line1"] as? String == "Rua A, 1")

        // The Formworks client's own encoding: rules it carries are ignored.
        let snapshot = #"""
        {"components": [
          {"id": "name", "title": "Your name", "description": "", "required": false, "regex": ".*", "placeholder": "", "content": "Bo"},
          {"id": "mail", "title": "E-mail", "description": "", "required": true, "regex": "", "placeholder": "", "content": "bo@example.org"},
          {"id": "address.line1", "title": "Line 1", "description": "", "required": true, "regex": "", "placeholder": "", "content": "Rua B"}
        ]}
        """#
        #expect(try await client.postJSON("/v1/forms/signup/submissions", snapshot).status == 201)
        let short = #"{"components": [{"id": "name", "content": "Cy"}, {"id": "mail", "content": "cy@example.org"}, {"id": "address.line1", "content": "x"}]}"#
        #expect(try await client.postJSON("/v1/forms/signup/submissions", short).status == 201)
        // A client claiming a field is optional does not make it optional.
        let lying = #"{"components": [{"id": "name", "required": false, "content": ""}, {"id": "mail", "content": "cy@example.org"}, {"id": "address.line1", "content": "x"}]}"#
        #expect(try await client.postJSON("/v1/forms/signup/submissions", lying).status == 422)
        await server.finish()
    }

    @Test func everyErrorStatus() async throws {
        let server = try await server { $0.maxBodyBytes = 32_768 }
        let client = server.client
        let invalid = try await client.postJSON("/v1/forms/signup/submissions", #"{"values": {"name": "", "mail": "nope", "age": 7, "extra": 1}}"#)
        #expect(invalid.status == 422)
        #expect(invalid.object["type"] as? String == "https://formhouse.dev/problems/validation-failed")
        #expect(invalid.object["title"] as? String == "Submission is invalid")
        let errors = invalid.object["errors"] as? [[String: Any]] ?? []
        let pairs = Set(errors.compactMap { e in (e["field"] as? String).map { "\($0):\(e["code"] as? String ?? "")" } })
        #expect(pairs.contains("name:required"))
        #expect(pairs.contains("mail:email"))
        #expect(pairs.contains("age:minValue"))
        #expect(pairs.contains("address.line1:required"))
        #expect(pairs.contains("extra:unknown"))
        #expect(errors.allSatisfy { ($0["message"] as? String)?.isEmpty == false })

        let malformed = try await client.postJSON("/v1/forms/signup/submissions", #"{"values": {"name": "#)
        #expect(malformed.status == 400)
        #expect(malformed.header("Content-Type") == "application/problem+json")
        // Where it broke: byte 20 is the end of the body, where a value was due.
        #expect(malformed.object["offset"] as? Int == 20)
        #expect((malformed.object["detail"] as? String)?.hasSuffix(" at byte 20.") == true)
        #expect(malformed.object["title"] as? String == "Bad Request")
        let shape = try await client.postJSON("/v1/forms/signup/submissions", #"[1, 2]"#)
        #expect(shape.status == 400)
        #expect(shape.object["type"] as? String == "https://formhouse.dev/problems/invalid-submission-shape")
        // Past the engine's limits (nesting, an id's depth or repeat index) is 400 submission-too-large.
        let deepID = Array(repeating: "x", count: 2_000).joined(separator: ".")
        for body in [#"{"values": "# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}",
                     #"{"components": [{"id": "\#(deepID)", "content": "v"}]}"#,
                     #"{"components": [{"id": "kids[1000].name", "content": "v"}]}"#] {
            let refused = try await client.postJSON("/v1/forms/signup/submissions", body)
            #expect(refused.status == 400)
            #expect(refused.object["type"] as? String == "https://formhouse.dev/problems/submission-too-large")
            #expect(refused.object["offset"] == nil, "offset belongs to malformed-submission only")
        }
        try await Self.expectErrorsCapped(client, "/v1/forms/signup/submissions", status: 422)
        #expect(try await client.postJSON("/v1/forms/nope/submissions", Fixtures.validValues).status == 404)
        let wrongType = try await client.send("POST", "/v1/forms/signup/submissions", headers: [("Content-Type", "text/plain")], body: Array(Fixtures.validValues.utf8))
        #expect(wrongType.status == 415)
        #expect(wrongType.object["title"] as? String == "Unsupported Media Type")
        // Bodies are read as sent: a coding is refused rather than parsed as JSON or stored as it came,
        // and so is a charset other than UTF-8.
        let valid = Array(Fixtures.validValues.utf8)
        for (name, value) in [("Content-Encoding", "gzip"), ("Content-Encoding", "br"), ("Content-Encoding", "identity, gzip"),
                              ("Content-Type", "application/json; charset=iso-8859-1"),
                              ("Content-Type", #"application/json;charset="UTF-16""#)] {
            var headers = [(name, value)]
            if name != "Content-Type" { headers.append(("Content-Type", "application/json")) }
            let refused = try await client.send("POST", "/v1/forms/signup/submissions", headers: headers, body: valid)
            #expect(refused.status == 415, "\(name): \(value)")
            #expect(refused.object["type"] as? String == "https://formhouse.dev/problems/unsupported-media-type")
        }
        let coded = try await client.send("POST", "/v1/forms/signup/submissions", headers: [
            ("Content-Type", "application/json"), ("Content-Encoding", "gzip")], body: valid)
        #expect(coded.header("Accept-Encoding") == "identity")
        // A second header line counts as much as the first.
        let twoLines = try await client.send("POST", "/v1/forms/signup/submissions", headers: [
            ("Content-Type", "application/json"), ("Content-Encoding", "identity"), ("Content-Encoding", "gzip")], body: valid)
        #expect(twoLines.status == 415)
        for (name, value) in [("Content-Encoding", "identity"), ("Content-Type", "application/json; charset=UTF-8")] {
            var headers = [(name, value)]
            if name != "Content-Type" { headers.append(("Content-Type", "application/json")) }
            let taken = try await client.send("POST", "/v1/forms/signup/submissions", headers: headers, body: valid)
            #expect(taken.status == 201, "\(name): \(value)")
        }
        let tooLarge = try await client.postJSON("/v1/forms/signup/submissions", #"{"values": {"name": ""# + String(repeating: "x", count: 40_000) + #""}}"#)
        #expect(tooLarge.status == 413)
        // The HTTP layer's own refusals share the API's problem namespace.
        #expect(tooLarge.object["type"] as? String == "https://formhouse.dev/problems/content-too-large")
        let wrongMethod = try await client.send("DELETE", "/v1/forms/signup/submissions")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.object["type"] as? String == "https://formhouse.dev/problems/method-not-allowed")
        let noRoute = try await client.send("GET", "/v1/forms/")
        #expect(noRoute.status == 404)
        #expect(noRoute.object["type"] as? String == "https://formhouse.dev/problems/not-found")
        let unknownVersion = try await client.postJSON("/v1/forms/signup/submissions", #"{"formVersion": 7, "values": {}}"#)
        #expect(unknownVersion.status == 409)
        // The server keeps serving after every refusal.
        #expect(try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues).status == 201)
        await server.finish()
    }

    @Test func formVersionSelectsTheRules() async throws {
        let server = try await server()
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signupV2).object["version"] as? Int == 2)
        let noAge = #"{"formVersion": 1, "values": {"name": "Ana", "mail": "ana@example.org", "address": {"line1": "x"}}}"#
        let old = try await client.postJSON("/v1/forms/signup/submissions", noAge)
        #expect(old.status == 201)
        #expect(old.object["formVersion"] as? Int == 1)
        let current = try await client.postJSON("/v1/forms/signup/submissions", noAge.replacingOccurrences(of: #""formVersion": 1, "#, with: ""))
        #expect(current.status == 422)
        await server.finish()
    }

    @Test func validateStoresNothing() async throws {
        let server = try await server()
        let client = server.client
        let ok = try await client.postJSON("/v1/forms/signup/validate", Fixtures.validValues)
        #expect(ok.status == 200)
        #expect(ok.object["valid"] as? Bool == true)
        #expect((ok.object["errors"] as? [Any])?.isEmpty == true)
        let bad = try await client.postJSON("/v1/forms/signup/validate", #"{"values": {"mail": "x"}}"#)
        #expect(bad.status == 200)
        #expect(bad.object["valid"] as? Bool == false)
        #expect((bad.object["errors"] as? [Any])?.count ?? 0 >= 2)
        // The same cap on listed errors as a 422.
        try await Self.expectErrorsCapped(client, "/v1/forms/signup/validate", status: 200)
        let page = try await client.admin("GET", "/v1/admin/forms/signup/submissions")
        #expect((page.object["items"] as? [Any])?.isEmpty == true)
        await server.finish()
    }

    @Test func idempotencyKeyReplaysAndRefusesReuse() async throws {
        let server = try await server()
        let client = server.client
        let key = [("Idempotency-Key", "key-\(UUID().uuidString)")]
        let first = try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues, headers: key)
        #expect(first.status == 201)
        #expect(first.header("Idempotent-Replayed") == nil)
        let again = try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues, headers: key)
        #expect(again.status == 201)
        #expect(again.header("Idempotent-Replayed") == "true")
        #expect(again.body == first.body)
        let reused = try await client.postJSON("/v1/forms/signup/submissions", Fixtures.values(name: "Other"), headers: key)
        #expect(reused.status == 422)
        #expect(reused.object["type"] as? String == "https://formhouse.dev/problems/idempotency-key-reused")
        // Two keys on one request: neither is taken, nothing is stored.
        let twoKeys = try await client.postJSON(
            "/v1/forms/signup/submissions", Fixtures.values(name: "Two"),
            headers: [("Idempotency-Key", "key-a-\(UUID().uuidString)"), ("Idempotency-Key", "key-b-\(UUID().uuidString)")])
        #expect(twoKeys.status == 400)
        #expect(twoKeys.object["type"] as? String == "https://formhouse.dev/problems/invalid-idempotency-key")
        let page = try await client.admin("GET", "/v1/admin/forms/signup/submissions")
        #expect((page.object["items"] as? [Any])?.count == 1)
        // A client retrying after its form was deleted still learns its submission was accepted.
        #expect(try await client.admin("DELETE", "/v1/admin/forms/signup").status == 204)
        let afterDelete = try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues, headers: key)
        #expect(afterDelete.status == 201)
        #expect(afterDelete.body == first.body)
        #expect(try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues).status == 404)
        await server.finish()
    }

    @Test func rateLimitAnswers429WithRetryAfter() async throws {
        let server = try await server { $0.rateLimitBurst = 3; $0.rateLimitPerSecond = 0.001 }
        let client = server.client
        for _ in 0..<3 { #expect(try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues).status == 201) }
        let limited = try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues)
        #expect(limited.status == 429)
        #expect(Int(limited.header("Retry-After") ?? "") ?? 0 >= 1)
        #expect(try await client.get("/v1/forms/signup").status == 200)
        // /validate has its own bucket, four times as large, so typing in the web form does not use
        // up the submissions; it is limited too.
        var validations: [Int] = []
        for _ in 0..<13 { validations.append(try await client.postJSON("/v1/forms/signup/validate", Fixtures.validValues).status) }
        #expect(validations == Array(repeating: 200, count: 12) + [429])
        await server.finish()
    }

    /// A large body costs one token per 64 KiB more, as parsing and validating it costs in proportion.
    @Test func largeBodiesCostMoreOfTheRateLimit() async throws {
        let server = try await server { $0.rateLimitBurst = 10; $0.rateLimitPerSecond = 0.001 }
        let client = server.client
        // About 300 KiB of unknown keys: 1 + 4 tokens, and a 422 that lists them within its byte cap.
        let padding = (0..<300).map { #""unknown\#($0)\#(String(repeating: "x", count: 1000))": "v""# }.joined(separator: ", ")
        let big = #"{"values": {"name": "Ana", \#(padding)}}"#
        let first = try await client.postJSON("/v1/forms/signup/submissions", big)
        #expect(first.status == 422)
        #expect(first.object["truncated"] as? Bool == true && (first.object["errorCount"] as? Int ?? 0) >= 300)
        #expect(first.body.count < 300 * 1024, "the error list is capped in bytes")
        #expect(try await client.postJSON("/v1/forms/signup/submissions", big).status == 422)
        #expect(try await client.postJSON("/v1/forms/signup/submissions", big).status == 429)
        await server.finish()
    }

    /// The error list stays within its byte cap as written: one huge unknown key is cut (with "…"),
    /// and keys of control characters (six bytes each when escaped) count as escaped.
    @Test func errorListsStayWithinTheirByteCapAsWritten() async throws {
        let server = try await server { $0.rateLimitBurst = 1_000 }
        let client = server.client
        let huge = try await client.postJSON("/v1/forms/signup/validate", #"{"values": {"\#(String(repeating: "k", count: 900_000))": 1}}"#)
        #expect(huge.status == 200 && huge.body.count < 300 * 1024, "\(huge.body.count) bytes")
        let field = ((huge.object["errors"] as? [[String: Any]])?.first { $0["code"] as? String == "unknown" })?["field"] as? String
        #expect(field?.hasSuffix("…") == true && (field?.utf8.count ?? 0) <= 1024)
        let escaped = (0..<1000).map { #""\#($0)\#(String(repeating: "\\u0001", count: 150))": 1"# }.joined(separator: ", ")
        let control = try await client.postJSON("/v1/forms/signup/validate", #"{"values": {\#(escaped)}}"#)
        #expect(control.status == 200 && control.body.count < 300 * 1024, "\(control.body.count) bytes")
        #expect(control.object["truncated"] as? Bool == true)
        await server.finish()
    }

    @Test func pagingExportAndRawBody() async throws {
        let server = try await server { $0.rateLimitBurst = 1_000 }
        let client = server.client
        var ids: [String] = []
        for i in 0..<25 {
            let name = i == 0 ? "=HYPERLINK(\"http://evil\")" : "Person \(i), \"quoted\""
            let response = try await client.postJSON("/v1/forms/signup/submissions", Fixtures.values(name: name))
            #expect(response.status == 201)
            ids.append(response.object["id"] as? String ?? "")
        }
        var seen: [String] = []
        var cursor: String?
        repeat {
            let path = "/v1/admin/forms/signup/submissions?limit=10" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = try await client.admin("GET", path)
            #expect(page.status == 200)
            seen += (page.object["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            cursor = page.object["nextCursor"] as? String
        } while cursor != nil
        #expect(seen.count == 25)
        #expect(Set(seen) == Set(ids))
        #expect(try await client.admin("GET", "/v1/admin/forms/signup/submissions?cursor=garbage").status == 400)
        // Only cursors this server handed out for this list are taken: not one cut short, made up
        // (the store's own encoding without its seal) or from another form.
        let first = try await client.admin("GET", "/v1/admin/forms/signup/submissions?limit=10")
        let token = first.object["nextCursor"] as? String ?? ""
        #expect(try await client.admin("GET", "/v1/admin/forms/signup/submissions?limit=10&cursor=\(token)").status == 200)
        let forged = Data("0:sub_x".utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
        let inner = String(token.prefix { $0 != "." })
        #expect(try await client.admin("PUT", "/v1/admin/forms/other", json: #"{"title": "Other", "components": []}"#).status == 201)
        for (path, bad) in [("signup", String(token.dropLast(2))), ("signup", forged), ("signup", inner),
                            ("signup", inner + "." + String(repeating: "0", count: 32)), ("other", token)] {
            let refused = try await client.admin("GET", "/v1/admin/forms/\(path)/submissions?cursor=\(bad)")
            #expect(refused.status == 400, "\(bad)")
            #expect(refused.object["type"] as? String == "https://formhouse.dev/problems/invalid-cursor")
        }
        #expect(try await client.admin("GET", "/v1/admin/forms/signup/submissions?limit=0").status == 400)
        // An export has every submission: a page's parameters are refused, not silently dropped.
        for query in ["format=csv&limit=10", "format=ndjson&cursor=\(token)", "format=csv&limit=0"] {
            let refused = try await client.admin("GET", "/v1/admin/forms/signup/submissions?\(query)")
            #expect(refused.status == 400, "\(query)")
            #expect(refused.object["type"] as? String == "https://formhouse.dev/problems/invalid-parameter")
        }

        let csv = try await client.admin("GET", "/v1/admin/forms/signup/submissions?format=csv")
        #expect(csv.status == 200)
        #expect(csv.header("Content-Type")?.hasPrefix("text/csv") == true)
        #expect(csv.header("Transfer-Encoding") == "chunked")
        let lines = csv.text.split(separator: "\r\n")
        #expect(lines.count == 26)
        #expect(lines[0] == "id,formVersion,receivedAt,name,mail,age,address.line1")
        #expect(csv.text.contains("'=HYPERLINK"))
        #expect(!csv.text.contains(",=HYPERLINK"))
        #expect(csv.text.contains("\"Person 1, \"\"quoted\"\"\""))

        let ndjson = try await client.admin("GET", "/v1/admin/forms/signup/submissions?format=ndjson")
        #expect(ndjson.status == 200)
        #expect(ndjson.text.split(separator: "\n").count == 25)

        // A new version without `age` and with `phone`: the export keeps the old submissions' ages.
        let v2 = #"{"title": "Sign up", "components": [{"text": {"id": "name", "title": "Name"}}, {"text": {"id": "phone", "title": "Phone"}}]}"#
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: v2).object["version"] as? Int == 2)
        #expect(try await client.postJSON("/v1/forms/signup/submissions", #"{"values": {"name": "New", "phone": "555"}}"#).status == 201)
        let mixed = try await client.admin("GET", "/v1/admin/forms/signup/submissions?format=csv")
        let rows = mixed.text.split(separator: "\r\n")
        #expect(rows.first == "id,formVersion,receivedAt,name,phone,mail,age,address.line1")
        #expect(rows.count == 27)
        #expect(rows.filter { $0.hasSuffix(",ana@example.org,30,\"Rua A, 1\"") }.count == 25)
        #expect(rows.contains { $0.hasSuffix(",New,555,,,") })

        let one = try await client.admin("GET", "/v1/admin/submissions/\(ids[3])")
        #expect(one.status == 200)
        #expect(one.object["id"] as? String == ids[3])
        #expect(try await client.admin("GET", "/v1/admin/submissions/sub_nothing").status == 404)
        await server.finish()
    }

    /// A reader keyed by header gets the submission's own id, and a repeat's columns line up item by item.
    @Test func csvHeadersAreUniqueAndRepeatColumnsLineUp() async throws {
        let server = try await server()
        let client = server.client
        let form = #"""
        {"title": "Kids", "components": [{"text": {"id": "id"}}, {"text": {"id": "receivedAt"}},
          {"group": {"id": "kids", "repeat": {"max": 5}, "components": [{"text": {"id": "nm"}}, {"text": {"id": "other"}}]}}]}
        """#
        #expect(try await client.admin("PUT", "/v1/admin/forms/kids", json: form).status == 201)
        let accepted = try await client.postJSON("/v1/forms/kids/submissions", #"""
        {"values": {"id": "mine", "receivedAt": "yesterday", "kids": [{"nm": "B"}, {"nm": "C", "other": "aunt"}]}}
        """#)
        #expect(accepted.status == 201)
        let csv = try await client.admin("GET", "/v1/admin/forms/kids/submissions?format=csv")
        let lines = csv.text.split(separator: "\r\n")
        #expect(lines.first == "id,formVersion,receivedAt,values.id,values.receivedAt,kids[].nm,kids[].other")
        #expect(lines.count == 2)
        #expect(lines.last?.hasPrefix("\(accepted.object["id"] as? String ?? "?"),1,") == true)
        #expect(lines.last?.hasSuffix(#",mine,yesterday,"[""B"",""C""]","[null,""aunt""]""#) == true)
        await server.finish()
    }

    /// An input that became a group in a later version keeps its column for the old rows, and the
    /// group's rows leave it empty instead of repeating the group's values there as JSON.
    @Test func anInputThatBecameAGroupIsNotRepeatedInItsOldColumn() async throws {
        let server = try await server()
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/moved", json: #"{"title": "M", "components": [{"text": {"id": "addr"}}]}"#).status == 201)
        #expect(try await client.postJSON("/v1/forms/moved/submissions", #"{"values": {"addr": "Main St"}}"#).status == 201)
        #expect(try await client.admin("PUT", "/v1/admin/forms/moved", json: #"""
        {"title": "M", "components": [{"group": {"id": "addr", "components": [{"text": {"id": "city"}}]}}]}
        """#).status == 200)
        #expect(try await client.postJSON("/v1/forms/moved/submissions", #"{"values": {"addr": {"city": "Lisbon"}}}"#).status == 201)
        // And then a repeating group.
        #expect(try await client.admin("PUT", "/v1/admin/forms/moved", json: #"""
        {"title": "M", "components": [{"group": {"id": "addr", "repeat": {"max": 3}, "components": [{"text": {"id": "city"}}]}}]}
        """#).status == 200)
        #expect(try await client.postJSON("/v1/forms/moved/submissions", #"{"values": {"addr": [{"city": "Porto"}]}}"#).status == 201)
        let lines = try await client.admin("GET", "/v1/admin/forms/moved/submissions?format=csv").text.split(separator: "\r\n")
        #expect(lines.first == "id,formVersion,receivedAt,addr[].city,addr.city,addr")
        let rows = Set(lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).suffix(3).joined(separator: ",") })
        #expect(rows == [",,Main St", ",Lisbon,", #""[""Porto""]",,"#], "\(lines)")
        await server.finish()
    }

    /// 1,500 unknown keys: the answer lists 1,000 errors and says how many there were.
    private static func expectErrorsCapped(_ client: TestHTTPClient, _ path: String, status: Int) async throws {
        let unknown = (0..<1_500).map { #""k\#($0)": 1"# }.joined(separator: ", ")
        let flood = try await client.postJSON(path, #"{"values": {\#(unknown)}}"#)
        #expect(flood.status == status)
        #expect((flood.object["errors"] as? [Any])?.count == 1_000)
        #expect(flood.object["errorCount"] as? Int ?? 0 >= 1_500)
        #expect(flood.object["truncated"] as? Bool == true)
    }

    @Test func rawBodyIsKeptByteForByte() async throws {
        let server = try await server()
        let client = server.client
        let odd = "{ \"values\" :{\"name\":\"Zoë \\u00e9 😀\",  \"mail\":\"z@example.org\",\n\"age\": 3.0e1, \"address\":{\"line1\":\"x\"}} }"
        let accepted = try await client.postJSON("/v1/forms/signup/submissions", odd)
        #expect(accepted.status == 201)
        let id = accepted.object["id"] as? String ?? ""
        let raw = try await client.admin("GET", "/v1/admin/submissions/\(id)/raw")
        #expect(raw.status == 200)
        #expect(raw.body == Array(odd.utf8))
        await server.finish()
    }
}
