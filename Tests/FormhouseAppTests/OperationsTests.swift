import Foundation
import Testing
@testable import FormhouseApp

/// Readiness, metrics families, the value cap, concurrent idempotent retries, and `formhouse check`.
@Suite(.serialized) struct OperationsTests {
    @Test func readyzAnswers503WhenTheDatabaseCannotBeRead() async throws {
        let server = try await InProcessServer()
        #expect(try await server.client.get("/readyz").status == 200)
        server.app.store.close()
        let down = try await server.client.get("/readyz")
        #expect(down.status == 503)
        #expect(down.header("Retry-After") != nil)
        #expect(down.header("Content-Type") == "application/problem+json")
        #expect(try await server.client.get("/healthz").status == 200)
        await server.finish()
    }

    /// A second server on a data directory in use is refused: the first would go on serving forms
    /// the second replaced or deleted. Once the first stops, the directory is free.
    @Test func oneServerPerDataDirectory() async throws {
        let first = try await InProcessServer()
        do {
            _ = try await InProcessServer(dataDirectory: first.data)
            Issue.record("a second server started on a data directory in use")
        } catch let error as ConfigurationError {
            #expect(error.key == "dataDirectory")
            #expect(error.message.contains("pid \(getpid())"), "\(error.message)")
        }
        #expect(try await first.client.get("/readyz").status == 200)
        await first.stop()
        let second = try await InProcessServer(dataDirectory: first.data)
        #expect(try await second.client.get("/readyz").status == 200)
        await second.finish()
    }

    /// SQLite keeps writing to a database file deleted under it, so a 201 would name a row no restart
    /// finds. The store notices the file is gone: not ready, and submissions, other writes and reads
    /// are refused (503), not lost or answered from the old file.
    @Test func aDeletedDatabaseIsNotReadyAndTakesNoSubmissions() async throws {
        let server = try await InProcessServer()
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        #expect(try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues).status == 201)
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: server.data.path + "/formhouse.sqlite" + suffix)
        }
        let ready = try await client.get("/readyz")
        #expect(ready.status == 503)
        let refused = try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues)
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") != nil)
        #expect(refused.object["type"] as? String == "https://formhouse.dev/problems/unavailable")
        // Other writes too, and through the shared mapping, with no SQLite detail in the answer.
        let save = try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signupV2)
        #expect(save.status == 503)
        #expect(save.header("Retry-After") != nil)
        #expect(!save.text.contains("formhouse.sqlite"))
        // And reads: the unlinked file's rows are not served as if they were still there.
        #expect(try await client.admin("GET", "/v1/admin/forms").status == 503)
        #expect(try await client.admin("GET", "/v1/admin/forms/signup/submissions").status == 503)
        await server.finish()
    }

    /// A directory or a dangling link named `*.json` among the sample forms is skipped with a log
    /// line, like a broken file; the server still starts and loads the rest.
    @Test func unreadableSampleEntriesAreSkipped() async throws {
        let forms = try TemporaryDirectory()
        defer { forms.remove() }
        try FileManager.default.createDirectory(atPath: forms.path + "/a-directory.json", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: forms.path + "/b-dangling.json", withDestinationPath: forms.path + "/nowhere")
        try FileManager.default.copyItem(atPath: Repo.forms + "/account.json", toPath: forms.path + "/c-account.json")
        let server = try await InProcessServer { $0.formsDirectory = forms.path }
        #expect(try await server.client.get("/v1/forms/account").status == 200)
        await server.finish()
    }

    /// A parameter a route reads, sent with percent-encoding that does not decode, is refused (a
    /// filter must not silently vanish); junk in parameters no one reads, like a campaign tag, is not.
    @Test func malformedQueryValuesAreRefusedOnlyWhereRead() async throws {
        let server = try await InProcessServer()
        let client = server.client
        let filtered = try await client.admin("GET", "/v1/admin/deliveries?status=dead%")
        #expect(filtered.status == 400)
        #expect(filtered.object["type"] as? String == "https://formhouse.dev/problems/invalid-parameter")
        #expect(try await client.get("/v1/forms/account?version=%ZZ").status == 400)
        #expect(try await client.get("/v1/forms/account?utm=50%off").status == 200)
        #expect(try await client.get("/f/account?ref=caf%E9").status == 200)
        await server.finish()
    }

    @Test func metricsCanRequireTheirOwnToken() async throws {
        let server = try await InProcessServer { $0.metricsToken = "scraper-token-0123456789" }
        let client = server.client
        let refused = try await client.get("/metrics")
        #expect(refused.status == 401)
        #expect(refused.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        #expect(try await client.get("/metrics", headers: [("Authorization", "Bearer wrong-token-0123456789")]).status == 401)
        // The admin token is not the scraper's.
        #expect(try await client.admin("GET", "/metrics").status == 401)
        let scraped = try await client.get("/metrics", headers: [("Authorization", "Bearer scraper-token-0123456789")])
        #expect(scraped.status == 200)
        #expect(scraped.text.contains("formhouse_http_requests_total"))
        #expect(try await client.get("/healthz").status == 200)
        await server.finish()
    }

    @Test func metricsCoverSubmissionsAndTheStore() async throws {
        let server = try await InProcessServer()
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        // Groups committed so far: the registry is the process's, shared with tests running beside this one.
        let groupsBefore = Self.sample("formhouse_store_group_size_count", in: try await client.get("/metrics").text)
        #expect(try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues).status == 201)
        #expect(try await client.postJSON("/v1/forms/signup/submissions", #"{"values": {}}"#).status == 422)
        #expect(try await client.get("/v1/forms/no-such-form").status == 404)
        #expect(try await client.get("/no/such/path").status == 404)
        #expect(try await client.get("/openapi.json").status == 200)
        #expect(try await client.send("OPTIONS", "/v1/forms/signup").status == 204)
        let text = try await client.get("/metrics").text
        // The submission's group was recorded, not only declared.
        #expect(Self.sample("formhouse_store_group_size_count", in: text) > groupsBefore)
        #expect(Self.sample("formhouse_store_commit_seconds_count", in: text) >= 1)
        // Static files (the OpenAPI document among them) count under one route; OPTIONS under the path's.
        #expect(text.contains(#"formhouse_http_requests_total{route="static",method="GET",status="200"}"#))
        #expect(text.contains(#"formhouse_http_requests_total{route="/v1/forms/{id}",method="OPTIONS",status="204"}"#))
        #expect(text.contains(#"formhouse_http_requests_total{route="/v1/forms/{id}/submissions",method="POST",status="201"}"#))
        // A problem thrown by a handler counts under its route; a path no route matches, as unmatched.
        #expect(text.contains(#"formhouse_http_requests_total{route="/v1/forms/{id}",method="GET",status="404"}"#))
        #expect(text.contains(#"formhouse_http_requests_total{route="unmatched",method="GET",status="404"}"#))
        #expect(text.contains(#"formhouse_submissions_total{form="signup",outcome="accepted"}"#))
        #expect(text.contains(#"formhouse_submissions_total{form="signup",outcome="rejected"}"#))
        // A thrown answer (the 422) is counted under its route, not as unmatched.
        #expect(text.contains(#"formhouse_http_requests_total{route="/v1/forms/{id}/submissions",method="POST",status="422"}"#))
        #expect(text.contains("formhouse_http_request_duration_seconds_bucket"))
        #expect(text.contains("formhouse_store_commit_seconds"))
        #expect(text.contains("formhouse_store_group_size"))
        #expect(text.contains("formhouse_webhook_queue_depth") || text.contains("formhouse_webhook_deliveries_total"))
        // What the HTTP layer refuses before any route (here a body over the limit) is counted too.
        let oversized = try client.rawExchange(Array("POST /v1/forms/signup/submissions HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n".utf8))
        #expect(String(decoding: oversized, as: UTF8.self).hasPrefix("HTTP/1.1 413"))
        let after = try await client.get("/metrics").text
        #expect(after.contains(#"formhouse_http_requests_total{route="refused",method="unknown",status="413"}"#))
        await server.finish()
    }

    /// Tokens are secrets: at the most verbose level, neither the configured token nor a wrong one a
    /// client sent reaches the log, wherever in the request it travelled.
    @Test func adminTokensNeverReachTheLog() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let logFile = dir.path + "/server.log"
        let server = try ServerProcess(dataDirectory: dir.path + "/data", logFile: logFile, logLevel: "trace")
        let wrong = "wrong-token-0123456789abcdef"
        #expect(try await server.client.admin("GET", "/v1/admin/forms").status == 200)
        #expect(try await TestHTTPClient(port: server.port, token: wrong).admin("GET", "/v1/admin/forms").status == 401)
        #expect(try await server.client.send("GET", "/v1/admin/forms?access_token=\(InProcessServer.token)").status == 401)
        #expect(try await server.client.get("/\(InProcessServer.token)").status == 404)
        #expect(try await server.client.get("/v1/forms/account", headers: [("Authorization", "Bearer \(wrong)")]).status == 200)
        #expect(server.terminate() == 0)
        let log = try String(contentsOfFile: logFile, encoding: .utf8)
        // The requests were logged (so the check below reads a real log), without what they carried.
        #expect(log.components(separatedBy: "request").count > 5)
        #expect(!log.contains(InProcessServer.token))
        #expect(!log.contains(wrong))
    }

    @Test func valuesOverTheCapAreRefusedBeforeAnyRule() async throws {
        let server = try await InProcessServer { $0.maxValueLength = 50 }
        #expect(try await server.client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        let long = try await server.client.postJSON("/v1/forms/signup/submissions", Fixtures.values(name: String(repeating: "a", count: 51)))
        #expect(long.status == 422)
        let errors = long.object["errors"] as? [[String: Any]] ?? []
        #expect(errors.contains { $0["field"] as? String == "name" && $0["code"] as? String == "maxLength" })
        #expect(try await server.client.postJSON("/v1/forms/signup/submissions", Fixtures.values(name: String(repeating: "a", count: 50))).status == 201)
        await server.finish()
    }

    /// Many copies of one request with one key at once: each is either the first (201), a replay of it
    /// (201, same id) or told to retry (409); exactly one submission is stored.
    @Test func concurrentRetriesWithOneKeyStoreOnce() async throws {
        let server = try await InProcessServer()
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup).status == 201)
        let answers = try await withThrowingTaskGroup(of: TestResponse.self) { group in
            for _ in 0..<16 {
                group.addTask { try await client.postJSON("/v1/forms/signup/submissions", Fixtures.validValues, headers: [("Idempotency-Key", "same-key")]) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0.status == 201 || $0.status == 409 })
        #expect(answers.filter { $0.status == 409 }.allSatisfy { $0.header("Retry-After") != nil })
        let ids = Set(answers.filter { $0.status == 201 }.compactMap { $0.object["id"] as? String })
        #expect(ids.count == 1)
        let page = try await client.admin("GET", "/v1/admin/forms/signup/submissions")
        #expect((page.object["items"] as? [Any])?.count == 1)
        await server.finish()
    }

    @Test func checkCommandPrintsEveryProblemAndExitsNonZero() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let bad = dir.path + "/bad.json"
        try #"{"title": "Bad", "components": [{"nonsense": {"id": "a"}}, {"text": {"id": "b", "title": "B", "regex": "(x"}}]}"#
            .write(toFile: bad, atomically: true, encoding: .utf8)
        let good = try await Offload.blocking { try Self.run(["check", Repo.forms + "/household.json"]) }
        #expect(good.status == 0)
        #expect(good.output.contains("ok"))
        let failed = try await Offload.blocking { try Self.run(["check", bad, Repo.forms + "/account.json"]) }
        #expect(failed.status == 1)
        #expect(failed.output.contains("/components/0"))
        #expect(failed.output.contains("/components/1/text/regex"))
        #expect(failed.output.contains("account.json: ok"))
        // The id the server would refuse on upload is refused here too.
        let badID = dir.path + "/bad-id.json"
        try #"{"id": "bad id!", "title": "x", "components": [{"text": {"id": "a", "title": "A"}}]}"#
            .write(toFile: badID, atomically: true, encoding: .utf8)
        let refused = try await Offload.blocking { try Self.run(["check", badID]) }
        #expect(refused.status == 1)
        #expect(refused.output.contains("bad-id.json: /id:"))
        #expect(refused.output.contains("[invalidFormId]"))
        // Also alongside the definition's other problems.
        try #"{"id": "bad id", "title": "t", "components": [{"email": {"minValue": 1}}]}"#
            .write(toFile: badID, atomically: true, encoding: .utf8)
        let both = try await Offload.blocking { try Self.run(["check", badID]) }
        #expect(both.output.contains("[invalidFormId]") && both.output.contains("[notApplicable]"), "\(both.output)")
        let version = try await Offload.blocking { try Self.run(["version"]) }
        #expect(version.status == 0 && version.output.hasPrefix("formhouse "))
        let flag = try await Offload.blocking { try Self.run(["--version"]) }
        #expect(flag.status == 0 && flag.output == version.output)
    }

    /// `check` reads pipes too, and says why a file cannot be read.
    @Test func checkReadsPipesAndNamesWhyAFileCannotBeRead() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let definition = try String(contentsOfFile: Repo.forms + "/household.json", encoding: .utf8)
        let piped = try await Offload.blocking { try Self.run(["check", "/dev/stdin"], input: definition) }
        #expect(piped.status == 0 && piped.output.contains("/dev/stdin: ok"), "\(piped.output)")
        let failed = try await Offload.blocking { try Self.run(["check", dir.path + "/missing.json", dir.path]) }
        #expect(failed.status == 1)
        #expect(failed.output.contains("missing.json: cannot be read: No such file or directory"), "\(failed.output)")
        #expect(failed.output.contains("\(dir.path): cannot be read: Is a directory"), "\(failed.output)")
    }

    /// Start-up mistakes stop `serve` with exit 1 and the setting to fix, before or just after it listens.
    @Test func serveRefusesBadStartsNamingTheSetting() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let common = ["serve", "--config", dir.path + "/none.json", "--data-dir", dir.path + "/data",
                      "--forms-dir", Repo.forms, "--public-dir", Repo.root.appendingPathComponent("Public").path]
        let cases: [([String], String)] = [
            (["--port", "-1"], "configuration 'port'"),
            (["--port", "0", "--public-dir", ""], "configuration 'publicDirectory'"),
            (["--port", "0", "--port-file", dir.path + "/no/such/dir/port"], "configuration '--port-file'"),
        ]
        for (extra, expected) in cases {
            let result = try await Offload.blocking { try Self.run(common + extra) }
            #expect(result.status == 1, "\(extra)")
            #expect(result.output.contains(expected), "\(extra): \(result.output)")
        }
    }

    /// The value of an unlabelled Prometheus sample (`name value`), 0 when it is not there.
    static func sample(_ name: String, in text: String) -> Double {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1)) ?? 0
        }
        return 0
    }

    static func run(_ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Repo.binary)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        // A server that should have refused to start would otherwise hold the test for ever.
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) { if process.isRunning { process.terminate() } }
        stdin.fileHandleForWriting.write(Data((input ?? "").utf8))
        try stdin.fileHandleForWriting.close()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
