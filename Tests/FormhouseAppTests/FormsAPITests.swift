import Foundation
import FormStore
import Testing

/// Forms over HTTP: upload, versions, public fetch with ETag, profile, auth, delete.
@Suite(.serialized) struct FormsAPITests {
    @Test func adminRoutesNeedAToken() async throws {
        let server = try await InProcessServer()
        var anonymous = server.client
        anonymous.token = nil
        let missing = try await anonymous.get("/v1/admin/forms")
        #expect(missing.status == 401)
        #expect(missing.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        #expect(missing.header("Content-Type") == "application/problem+json")
        #expect(missing.object["type"] as? String == "https://formhouse.dev/problems/unauthorized")
        #expect(missing.header("WWW-Authenticate")?.contains("error=") == false)
        anonymous.token = "wrong-token-wrong-token"
        let wrong = try await anonymous.admin("GET", "/v1/admin/forms")
        #expect(wrong.status == 401)
        #expect(wrong.header("WWW-Authenticate") == #"Bearer realm="formhouse", error="invalid_token""#)
        #expect(try await anonymous.admin("PUT", "/v1/admin/forms/x", json: Fixtures.signup).status == 401)
        #expect(try await server.client.admin("GET", "/v1/admin/forms").status == 200)
        // RFC 6750: one or more spaces after the scheme, which is case-insensitive.
        let spaced = try await anonymous.send("GET", "/v1/admin/forms", headers: [("Authorization", "bearer   \(InProcessServer.token)")])
        #expect(spaced.status == 200)
        await server.finish()
    }

    @Test func uploadVersionsAndFetch() async throws {
        let server = try await InProcessServer()
        let client = server.client
        let created = try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup)
        #expect(created.status == 201)
        #expect(created.object["version"] as? Int == 1)
        let same = try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup)
        #expect(same.status == 200)
        #expect(same.object["version"] as? Int == 1)
        let changed = try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signupV2)
        #expect(changed.status == 200)
        #expect(changed.object["version"] as? Int == 2)

        let fetched = try await client.get("/v1/forms/signup")
        #expect(fetched.status == 200)
        #expect(fetched.header("ETag") == "\"2\"")
        #expect(fetched.object["id"] as? String == "signup")
        #expect((fetched.object["components"] as? [Any])?.count == 4)
        let notModified = try await client.get("/v1/forms/signup", headers: [("If-None-Match", "\"2\"")])
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        #expect(try await client.get("/v1/forms/signup", headers: [("If-None-Match", "\"1\"")]).status == 200)
        // Repeated lines are one list.
        #expect(try await client.get("/v1/forms/signup", headers: [("If-None-Match", "\"1\""), ("If-None-Match", "\"2\"")]).status == 304)

        let profile = try await client.get("/v1/forms/signup?profile=formworks")
        #expect(profile.status == 200)
        let types = (profile.object["components"] as? [[String: Any]] ?? []).compactMap { $0.keys.first }
        #expect(!types.isEmpty)
        #expect(Set(types).isSubset(of: ["text", "multiline", "email", "numerical", "phonenumber"]))
        #expect(try await client.get("/v1/forms/signup?profile=nope").status == 400)

        let publicV1 = try await client.get("/v1/forms/signup?version=1")
        #expect(publicV1.status == 200)
        #expect(publicV1.header("ETag") == "\"1\"")
        #expect(publicV1.object["version"] as? Int == 1)
        #expect(try await client.get("/v1/forms/signup?version=3").status == 404)
        #expect(try await client.get("/v1/forms/signup?version=zero").status == 400)
        let v1 = try await client.admin("GET", "/v1/admin/forms/signup?version=1")
        #expect(v1.status == 200)
        #expect(v1.header("ETag") == "\"1\"")
        // The 404 says what is missing: the version, or the form itself.
        for (path, detail) in [("signup?version=9", "Form 'signup' has no version 9."),
                               ("nosuchform", "There is no form 'nosuchform'."),
                               ("nosuchform?version=2", "There is no form 'nosuchform'.")] {
            let missing = try await client.admin("GET", "/v1/admin/forms/" + path)
            #expect(missing.status == 404 && missing.object["detail"] as? String == detail, "\(path)")
        }
        let versions = try await client.admin("GET", "/v1/admin/forms/signup/versions")
        #expect((versions.object["items"] as? [[String: Any]])?.compactMap { $0["version"] as? Int } == [1, 2])

        let list = try await client.admin("GET", "/v1/admin/forms")
        let item = (list.object["items"] as? [[String: Any]])?.first { $0["id"] as? String == "signup" }
        #expect(item?["version"] as? Int == 2)
        #expect(item?["submissionCount"] as? Int == 0)
        #expect(item?["updatedAt"] is String)
        await server.finish()
    }

    /// The same content is the same version whatever the member order, and whether the body names
    /// its id or leaves it to the path.
    @Test func identicalContentKeepsItsVersion() async throws {
        let server = try await InProcessServer()
        let client = server.client
        let plain = #"{"title": "Same", "components": [{"text": {"id": "a", "title": "A", "required": true}}]}"#
        #expect(try await client.admin("PUT", "/v1/admin/forms/same", json: plain).object["version"] as? Int == 1)
        let withID = #"{"id": "same", "title": "Same", "components": [{"text": {"id": "a", "title": "A", "required": true}}]}"#
        let reordered = #"{"components": [{"text": {"required": true, "title": "A", "id": "a"}}], "title": "Same"}"#
        for body in [withID, reordered, plain] {
            let again = try await client.admin("PUT", "/v1/admin/forms/same", json: body)
            #expect(again.status == 200)
            #expect(again.object["version"] as? Int == 1, "\(body)")
        }
        let changed = #"{"title": "Same", "components": [{"text": {"id": "a", "title": "A"}}]}"#
        #expect(try await client.admin("PUT", "/v1/admin/forms/same", json: changed).object["version"] as? Int == 2)
        // A definition read and put back as it is keeps its version: `version` is the server's own member.
        for path in ["/v1/admin/forms/same", "/v1/forms/same"] {
            let read = try await client.admin("GET", path)
            #expect(read.object["version"] as? Int == 2)
            let back = try await client.admin("PUT", "/v1/admin/forms/same", json: read.text)
            #expect(back.status == 200 && back.object["version"] as? Int == 2, "\(path): \(back.text)")
        }
        await server.finish()
    }

    /// If-Match and If-None-Match on PUT and DELETE hold against the current version, or nothing
    /// changes (412 with the current ETag): two admins cannot overwrite each other's edit unseen.
    @Test func preconditionsGuardSavesAndDeletes() async throws {
        let server = try await InProcessServer()
        let client = server.client
        let auth = ("Authorization", "Bearer \(InProcessServer.token)")
        func send(_ method: String, _ path: String, _ condition: (String, String), _ json: String? = nil) async throws -> TestResponse {
            var headers = [auth, condition]
            if json != nil { headers.append(("Content-Type", "application/json")) }
            return try await client.send(method, path, headers: headers, body: Array((json ?? "").utf8))
        }
        let v1 = #"{"title": "P", "components": [{"text": {"id": "a", "title": "A"}}]}"#
        let v2 = #"{"title": "P2", "components": [{"text": {"id": "a", "title": "A"}}]}"#
        // If-None-Match: * creates only.
        #expect(try await send("PUT", "/v1/admin/forms/p", ("If-None-Match", "*"), v1).status == 201)
        let exists = try await send("PUT", "/v1/admin/forms/p", ("If-None-Match", "*"), v2)
        #expect(exists.status == 412)
        #expect(exists.object["type"] as? String == "https://formhouse.dev/problems/precondition-failed")
        #expect(exists.header("ETag") == "\"1\"")
        // If-Match: the current version's ETag, compared strongly.
        for stale in ["\"7\"", "W/\"1\"", "\"1-formworks\""] {
            #expect(try await send("PUT", "/v1/admin/forms/p", ("If-Match", stale), v2).status == 412, "\(stale)")
        }
        #expect(try await client.admin("GET", "/v1/admin/forms/p").object["title"] as? String == "P")
        let saved = try await send("PUT", "/v1/admin/forms/p", ("If-Match", "\"9\", \"1\""), v2)
        #expect(saved.status == 200 && saved.object["version"] as? Int == 2)
        // The first admin's edit, based on version 1, is refused now.
        #expect(try await send("PUT", "/v1/admin/forms/p", ("If-Match", "\"1\""), v1).status == 412)
        #expect(try await send("PUT", "/v1/admin/forms/nothing", ("If-Match", "*"), v1).status == 412)
        #expect(try await send("DELETE", "/v1/admin/forms/p", ("If-Match", "\"1\"")).status == 412)
        #expect(try await client.get("/v1/forms/p").status == 200)
        #expect(try await send("DELETE", "/v1/admin/forms/p", ("If-Match", "\"2\"")).status == 204)
        #expect(try await client.get("/v1/forms/p").status == 404)
        await server.finish()
    }

    /// Saves racing on one form each get their own version back; none is told the save failed.
    @Test func concurrentSavesEachAnswerTheirOwnVersion() async throws {
        let server = try await InProcessServer()
        let client = server.client
        let answers = try await withThrowingTaskGroup(of: (Int, Int?).self) { group in
            for i in 0..<12 {
                group.addTask {
                    let body = #"{"title": "R\#(i)", "components": [{"text": {"id": "a", "title": "A"}}]}"#
                    let response = try await client.admin("PUT", "/v1/admin/forms/race", json: body)
                    return (response.status, response.object["version"] as? Int)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0.0 == 200 || $0.0 == 201 }, "\(answers)")
        #expect(answers.filter { $0.0 == 201 }.count == 1)
        #expect(Set(answers.compactMap(\.1)) == Set(1...12))
        await server.finish()
    }

    @Test func postCreatesWithBodyIdOrGeneratedId() async throws {
        let server = try await InProcessServer()
        let client = server.client
        let withID = try await client.admin("POST", "/v1/admin/forms", json: Fixtures.signup)
        #expect(withID.status == 201)
        #expect(withID.object["id"] as? String == "signup")
        let anonymous = try await client.admin("POST", "/v1/admin/forms", json: #"{"title": "No id", "components": [{"text": {"id": "a", "title": "A"}}]}"#)
        #expect(anonymous.status == 201)
        let generated = anonymous.object["id"] as? String ?? ""
        #expect(generated.hasPrefix("form_"))
        #expect(try await client.get("/v1/forms/\(generated)").status == 200)
        // POST creates: an id in use is refused (PUT adds versions), and the form is left as it was.
        let again = try await client.admin("POST", "/v1/admin/forms", json: Fixtures.signup.replacingOccurrences(of: "\"title\"", with: "\"description\": \"changed\", \"title\""))
        #expect(again.status == 409)
        #expect(again.object["type"] as? String == "https://formhouse.dev/problems/form-exists")
        #expect(try await client.admin("GET", "/v1/admin/forms/signup").object["version"] as? Int == 1)
        // A deleted form's id can be created again.
        #expect(try await client.admin("DELETE", "/v1/admin/forms/signup").status == 204)
        #expect(try await client.admin("POST", "/v1/admin/forms", json: Fixtures.signup).status == 201)
        await server.finish()
    }

    @Test func invalidDefinitionsListEveryProblemWithPointers() async throws {
        let server = try await InProcessServer()
        let bad = #"""
        {"id": "bad", "title": "Bad", "style": {"accent": "#XYZ"},
         "components": [
           {"text": {"id": "a", "title": "A"}},
           {"text": {"id": "a", "title": "Again"}},
           {"nonsense": {"id": "b", "title": "B"}},
           {"text": {"id": "c", "title": "C", "regex": "(unclosed"}},
           {"text": {"id": "d", "title": "D", "minLength": 5, "maxLength": 2}}
         ]}
        """#
        let response = try await server.client.admin("PUT", "/v1/admin/forms/bad", json: bad)
        #expect(response.status == 422)
        #expect(response.header("Content-Type") == "application/problem+json")
        let pointers = (response.object["errors"] as? [[String: Any]] ?? []).compactMap { $0["pointer"] as? String }
        #expect(pointers.contains("/style/accent"))
        #expect(pointers.contains { $0.hasPrefix("/components/1") })
        #expect(pointers.contains { $0.hasPrefix("/components/2") })
        #expect(pointers.contains("/components/3/text/regex"))
        #expect(pointers.contains { $0.hasPrefix("/components/4/text/") })
        #expect(try await server.client.get("/v1/forms/bad").status == 404)

        let mismatch = try await server.client.admin("PUT", "/v1/admin/forms/other", json: Fixtures.signup)
        #expect(mismatch.status == 422)
        let malformed = try await server.client.admin("PUT", "/v1/admin/forms/x", json: "{not json")
        #expect(malformed.status == 422 || malformed.status == 400)
        let wrongType = try await server.client.send("PUT", "/v1/admin/forms/x", headers: [("Authorization", "Bearer \(InProcessServer.token)"), ("Content-Type", "text/plain")], body: Array("{}".utf8))
        #expect(wrongType.status == 415)
        await server.finish()
    }

    /// A definition stored before the repeat expansion limit existed (written here straight into the
    /// store) is still served and validated after an upgrade; only its formworks profile, which
    /// would be too large, is refused.
    @Test func aStoredDefinitionPastTheExpansionLimitIsStillServed() async throws {
        let data = try TemporaryDirectory()
        let definition = #"{"id": "wide", "title": "Wide", "components": [{"group": {"id": "g", "title": "G", "repeat": {"min": 3, "max": 5}, "components": ["#
            + (0..<10_001).map { #"{"text": {"id": "t\#($0)", "title": "T"}}"# }.joined(separator: ",") + "]}}]}"
        let store = try SQLiteFormStore(directory: data.url)
        _ = try await store.saveFormVersion(formID: "wide", definition: definition, title: "Wide", contentHash: "old")
        store.close()
        let server = try await InProcessServer(dataDirectory: data)
        let client = server.client
        let upload = definition.replacingOccurrences(of: #""id": "wide""#, with: #""id": "wide2""#)
        #expect(try await client.admin("PUT", "/v1/admin/forms/wide2", json: upload).status == 422)
        #expect(try await client.get("/v1/forms/wide").status == 200)
        let profile = try await client.get("/v1/forms/wide?profile=formworks")
        #expect(profile.status == 409)
        #expect(profile.object["type"] as? String == "https://formhouse.dev/problems/profile-too-large")
        let values = #"{"values": {"g": [{"t0": "a"}, {"t1": "b"}, {"t2": "c"}]}}"#
        #expect(try await client.postJSON("/v1/forms/wide/submissions", values).status == 201)
        #expect(try await client.admin("GET", "/v1/admin/forms/wide/submissions?format=csv").status == 200)
        await server.finish()
    }

    /// An old version not in memory is compiled for the request that asks (`?version=n` or a body's
    /// `formVersion`), so asking draws on the client's submission rate limit; versions in memory and
    /// the current one do not.
    @Test func oldVersionsNotInMemoryCountAgainstTheRateLimit() async throws {
        let data = try TemporaryDirectory()
        let first = try await InProcessServer(dataDirectory: data)
        for title in ["One", "Two", "Three", "Four"] {
            let body = #"{"title": "\#(title)", "components": [{"text": {"id": "a", "title": "A"}}]}"#
            #expect([200, 201].contains(try await first.client.admin("PUT", "/v1/admin/forms/v", json: body).status))
        }
        await first.stop()
        let server = try await InProcessServer(dataDirectory: data) { $0.rateLimitBurst = 2; $0.rateLimitPerSecond = 0.01 }
        let client = server.client
        #expect(try await client.get("/v1/forms/v?version=1").status == 200)
        #expect(try await client.get("/v1/forms/v?version=2").status == 200)
        let limited = try await client.get("/v1/forms/v?version=3")
        #expect(limited.status == 429)
        #expect(limited.header("Retry-After") != nil)
        #expect(try await client.get("/v1/forms/v?version=1").status == 200)
        #expect(try await client.get("/v1/forms/v?version=4").status == 200)
        #expect(try await client.get("/v1/forms/v").status == 200)
        // A body's formVersion is charged the same way, on /validate too.
        #expect(try await client.postJSON("/v1/forms/v/validate", #"{"formVersion": 3, "values": {}}"#).status == 429)
        #expect(try await client.postJSON("/v1/forms/v/validate", #"{"formVersion": 1, "values": {}}"#).status == 200)
        await server.finish()
    }

    /// PUT creates or updates, so an id no form can have is a definition problem (422 at `/id`, with
    /// the body's own problems), as for POST, not a 404 for a missing form.
    @Test func putWithAnIdNoFormCanHaveIsAProblemOfTheDefinition() async throws {
        let server = try await InProcessServer()
        let body = #"{"title": "T", "components": [{"text": {"id": "a", "title": "A"}}]}"#
        for id in ["-abc", "a.b", "_x", String(repeating: "a", count: 65)] {
            let response = try await server.client.admin("PUT", "/v1/admin/forms/\(id)", json: body)
            #expect(response.status == 422, "\(id)")
            let errors = response.object["errors"] as? [[String: Any]] ?? []
            #expect(errors.map { "\($0["pointer"] ?? "") \($0["code"] ?? "")" } == ["/id invalidFormId"], "\(id)")
        }
        let both = try await server.client.admin("PUT", "/v1/admin/forms/a.b", json: #"{"components": []}"#)
        let pointers = (both.object["errors"] as? [[String: Any]] ?? []).compactMap { $0["pointer"] as? String }
        #expect(pointers.first == "/id" && pointers.contains("/title"))
        // POST reads the id from the body: a bad one is listed with the body's other problems too,
        // not only once they are fixed.
        let posted = try await server.client.admin(
            "POST", "/v1/admin/forms", json: #"{"id": "bad id", "title": "t", "components": [{"email": {"minValue": 1}}]}"#)
        #expect(posted.status == 422)
        let postedErrors = (posted.object["errors"] as? [[String: Any]] ?? []).map { "\($0["pointer"] ?? "") \($0["code"] ?? "")" }
        #expect(postedErrors.first == "/id invalidFormId" && postedErrors.count == 2, "\(postedErrors)")
        // An id of the wrong type is the decoder's problem at /id, listed once.
        let empty = try await server.client.admin("POST", "/v1/admin/forms", json: #"{"id": "", "components": []}"#)
        let emptyPointers = (empty.object["errors"] as? [[String: Any]] ?? []).compactMap { $0["pointer"] as? String }
        #expect(emptyPointers.filter { $0 == "/id" }.count == 1, "\(emptyPointers)")
        // PUT's id differing from the path is listed with the body's other problems too.
        let mismatched = try await server.client.admin(
            "PUT", "/v1/admin/forms/ver", json: #"{"id": "other", "title": "V", "style": {"accent": "red"}, "components": []}"#)
        let mismatchErrors = (mismatched.object["errors"] as? [[String: Any]] ?? []).map { "\($0["pointer"] ?? "") \($0["code"] ?? "")" }
        #expect(mismatchErrors.contains("/id idMismatch") && mismatchErrors.count >= 2, "\(mismatchErrors)")
        await server.finish()
    }

    @Test func deleteHidesTheFormButKeepsSubmissions() async throws {
        let server = try await InProcessServer()
        let client = server.client
        _ = try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup)
        #expect(try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues).status == 201)
        #expect(try await client.admin("DELETE", "/v1/admin/forms/signup").status == 204)
        #expect(try await client.get("/v1/forms/signup").status == 404)
        #expect(try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues).status == 404)
        #expect(try await client.admin("DELETE", "/v1/admin/forms/signup").status == 404)
        let kept = try await client.admin("GET", "/v1/admin/forms/signup/submissions")
        #expect(kept.status == 200)
        #expect((kept.object["items"] as? [Any])?.count == 1)
        // The form is gone for admins too, but its history stays readable: every version served is kept.
        #expect(try await client.admin("GET", "/v1/admin/forms/signup").status == 404)
        #expect(try await client.admin("GET", "/v1/admin/forms/signup?version=1").status == 200)
        #expect(try await client.admin("GET", "/v1/admin/forms/signup/versions").status == 200)
        await server.finish()
    }

    @Test func operationsEndpoints() async throws {
        let server = try await InProcessServer()
        let client = server.client
        #expect(try await client.get("/healthz").status == 200)
        #expect(try await client.get("/readyz").status == 200)
        _ = try await client.get("/v1/forms/nothing-here")
        let metrics = try await client.get("/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.text.contains("formhouse_http_requests_total"))
        #expect(metrics.text.contains("route=\"/v1/forms/{id}\""))
        let openapi = try await client.get("/openapi.json")
        #expect(openapi.status == 200)
        #expect(openapi.object["openapi"] as? String == "3.1.0")
        let notFound = try await client.get("/v1/nothing")
        #expect(notFound.status == 404)
        #expect(notFound.header("Content-Type") == "application/problem+json")
        await server.finish()
    }

    @Test func theFormsListAndVersionHistoryArePaged() async throws {
        let server = try await InProcessServer()
        let client = server.client
        // More than the 50 a page of submissions defaults to, so that "whole" means something.
        for id in ["p-a", "p-b", "p-c", "p-d", "p-e", "P-Z", "p_f"] + (0..<50).map({ "q-\($0)" }) {
            #expect(try await client.admin("PUT", "/v1/admin/forms/\(id)", json: #"{"title": "T", "components": []}"#).status == 201)
        }
        #expect(try await client.admin("DELETE", "/v1/admin/forms/p-c").status == 204)
        let whole = try await client.admin("GET", "/v1/admin/forms")
        let everyID = (whole.object["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(whole.object["nextCursor"] is NSNull)
        #expect(everyID == everyID.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(!everyID.contains("p-c") && everyID.contains("P-Z") && everyID.contains("p_f") && everyID.count > 56)

        func walk(_ path: String, limit: Int) async throws -> (pages: [[[String: Any]]], lastCursor: String?) {
            var pages: [[[String: Any]]] = []
            var cursor: String?
            var last: String?
            repeat {
                let page = try await client.admin("GET", "\(path)?limit=\(limit)" + (cursor.map { "&cursor=\($0)" } ?? ""))
                #expect(page.status == 200)
                pages.append(page.object["items"] as? [[String: Any]] ?? [])
                last = cursor ?? last
                cursor = page.object["nextCursor"] as? String
            } while cursor != nil && pages.count < 100
            return (pages, last)
        }
        let (formPages, formCursor) = try await walk("/v1/admin/forms", limit: 7)
        #expect(formPages.flatMap { $0 }.compactMap { $0["id"] as? String } == everyID)
        #expect(formPages.dropLast().allSatisfy { $0.count == 7 })
        #expect(formPages.count == (everyID.count + 6) / 7)

        for _ in 0..<4 {
            _ = try await client.admin("PUT", "/v1/admin/forms/p-a", json: #"{"title": "T\#(UUID())", "components": []}"#)
        }
        let (versionPages, versionCursor) = try await walk("/v1/admin/forms/p-a/versions", limit: 2)
        #expect(versionPages.map { $0.compactMap { ($0["version"] as? NSNumber)?.intValue } } == [[1, 2], [3, 4], [5]])
        #expect(try await client.admin("GET", "/v1/admin/forms/p-a/versions").object["nextCursor"] is NSNull)

        // A cursor is good only for the list that handed it out.
        let formsCursor = try #require(formCursor), versionsCursor = try #require(versionCursor)
        for path in ["/v1/admin/forms/p-a/versions?cursor=\(formsCursor)", "/v1/admin/forms/p-b/versions?cursor=\(versionsCursor)",
                     "/v1/admin/forms?cursor=\(versionsCursor)", "/v1/admin/forms?cursor=p-b",
                     "/v1/admin/forms/p-a/submissions?cursor=\(versionsCursor)"] {
            let refused = try await client.admin("GET", path)
            #expect(refused.status == 400, "\(path)")
            #expect(refused.object["type"] as? String == "https://formhouse.dev/problems/invalid-cursor", "\(path)")
        }
        // A parameter given twice could be honoured only once: refused rather than half taken.
        for path in ["/v1/admin/forms?limit=0", "/v1/admin/forms?limit=501", "/v1/admin/forms/p-a/versions?limit=x",
                     "/v1/admin/forms?limit=1&limit=500", "/v1/admin/forms/p-a/submissions?format=csv&format=json"] {
            let refused = try await client.admin("GET", path)
            #expect(refused.status == 400, "\(path)")
            #expect(refused.object["type"] as? String == "https://formhouse.dev/problems/invalid-parameter", "\(path)")
        }
        #expect(try await client.admin("GET", "/v1/admin/forms/nope/versions").status == 404)
        let many = try await client.admin("GET", "/v1/admin/forms?limit=500")
        #expect((many.object["items"] as? [Any])?.count == everyID.count)
        #expect(many.object["nextCursor"] is NSNull)
        await server.finish()
    }

    @Test func samplesAreLoadedAtFirstStart() async throws {
        let server = try await InProcessServer()
        let list = try await server.client.admin("GET", "/v1/admin/forms")
        let ids = (list.object["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        let files = try FileManager.default.contentsOfDirectory(atPath: Repo.forms).filter { $0.hasSuffix(".json") }
        #expect(ids.count == files.count)
        #expect(files.count >= 4)
        await server.finish()
    }

    @Test func corsPreflightForConfiguredOrigins() async throws {
        let server = try await InProcessServer { $0.corsOrigins = ["https://app.example"] }
        let preflight = try await server.client.send("OPTIONS", "/v1/forms/x/submissions", headers: [
            ("Origin", "https://app.example"), ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "content-type, idempotency-key")])
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Origin") == "https://app.example")
        #expect(preflight.header("Access-Control-Allow-Headers")?.contains("Idempotency-Key") == true)
        let other = try await server.client.get("/healthz", headers: [("Origin", "https://evil.example")])
        #expect(other.header("Access-Control-Allow-Origin") == nil)
        let allowed = try await server.client.get("/healthz", headers: [("Origin", "https://app.example")])
        #expect(allowed.header("Access-Control-Allow-Origin") == "https://app.example")
        // Problems too, so the page's script can read why it was refused.
        let missing = try await server.client.get("/v1/forms/no-such-form", headers: [("Origin", "https://app.example")])
        #expect(missing.status == 404)
        #expect(missing.header("Access-Control-Allow-Origin") == "https://app.example")
        #expect(missing.header("Vary") == "Origin")
        // A preflight from elsewhere is not answered by CORS: it reaches the router.
        let foreign = try await server.client.send("OPTIONS", "/v1/forms/x/submissions", headers: [
            ("Origin", "https://evil.example"), ("Access-Control-Request-Method", "POST")])
        #expect(foreign.header("Access-Control-Allow-Methods") == nil)
        #expect(foreign.header("Access-Control-Allow-Origin") == nil)
        await server.finish()
    }
}
