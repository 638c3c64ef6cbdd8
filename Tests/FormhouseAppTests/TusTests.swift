import Foundation
import Testing
@testable import FormhouseApp

/// Resumable uploads: the tus protocol by hand (each header and refusal), and a real tus client
/// (tuspy) resuming a 20 MiB file through cut connections and across a server killed mid-upload.
@Suite struct TusTests {
    static let bigForm = #"{"id": "big", "title": "Big", "components": [{"file": {"id": "doc", "title": "Doc", "required": true, "accept": ["application/pdf"], "maxSize": 31457280}}]}"#

    static func tusHeaders(_ extra: [(String, String)] = []) -> [(String, String)] {
        [("Tus-Resumable", "1.0.0")] + extra
    }

    static func metadata(_ pairs: [(String, String)]) -> String {
        pairs.map { "\($0.0) \(Data($0.1.utf8).base64EncodedString())" }.joined(separator: ",")
    }

    /// Creates a tus upload of `length` bytes for the claim form's photo; returns its path.
    static func create(_ client: TestHTTPClient, length: Int, type: String = "image/png") async throws -> String {
        let created = try await client.send("POST", "/v1/forms/claim/tus/", headers: tusHeaders([
            ("Upload-Length", String(length)),
            ("Upload-Metadata", metadata([("field", "photo"), ("filename", "p.png"), ("filetype", type)])),
        ]))
        #expect(created.status == 201, "\(created.text)")
        #expect(created.header("Tus-Resumable") == "1.0.0")
        #expect(created.header("Upload-Expires") != nil)
        return try #require(created.header("Location"))
    }

    static func patch(_ client: TestHTTPClient, _ path: String, offset: Int, _ bytes: [UInt8]) async throws -> TestResponse {
        try await client.send("PATCH", path, headers: tusHeaders([
            ("Upload-Offset", String(offset)), ("Content-Type", "application/offset+octet-stream"),
        ]), body: bytes)
    }

    @Test func theProtocolByHand() async throws {
        let server = try await UploadsAPITests.server()
        let client = server.client
        let options = try await client.send("OPTIONS", "/v1/forms/claim/tus/")
        #expect(options.status == 204)
        #expect(options.header("Tus-Version") == "1.0.0")
        #expect(options.header("Tus-Extension") == "creation,termination,expiration")

        let noVersion = try await client.send("POST", "/v1/forms/claim/tus/", headers: [("Upload-Length", "10")])
        #expect(noVersion.status == 412)
        let tooLarge = try await client.send("POST", "/v1/forms/claim/tus/", headers: Self.tusHeaders([
            ("Upload-Length", "200001"), ("Upload-Metadata", Self.metadata([("field", "photo")]))]))
        #expect(tooLarge.status == 413)
        let noField = try await client.send("POST", "/v1/forms/claim/tus/", headers: Self.tusHeaders([("Upload-Length", "10")]))
        #expect(noField.status == 400)

        let png = FileFixtures.png
        let path = try await Self.create(client, length: png.count)
        let head = try await client.send("HEAD", path, headers: Self.tusHeaders())
        #expect(head.status == 200)
        #expect(head.header("Upload-Offset") == "0")
        #expect(head.header("Upload-Length") == String(png.count))
        #expect(head.header("Cache-Control") == "no-store")

        let wrongType = try await client.send("PATCH", path, headers: Self.tusHeaders([
            ("Upload-Offset", "0"), ("Content-Type", "application/octet-stream")]), body: png)
        #expect(wrongType.status == 415)
        let wrongOffset = try await Self.patch(client, path, offset: 5, Array(png[5...]))
        #expect(wrongOffset.status == 409)
        #expect(wrongOffset.object["type"] as? String == ProblemType.uploadOffsetMismatch.uri)

        let first = try await Self.patch(client, path, offset: 0, Array(png[..<20]))
        #expect(first.status == 204)
        #expect(first.header("Upload-Offset") == "20")
        #expect(try await client.send("HEAD", path, headers: Self.tusHeaders()).header("Upload-Offset") == "20")
        let rest = try await Self.patch(client, path, offset: 20, Array(png[20...]))
        #expect(rest.status == 204, "\(rest.text)")
        #expect(rest.header("Upload-Offset") == String(png.count))
        let id = String(path.split(separator: "/").last!)
        #expect(rest.header("Upload-Id") == id)

        let submitted = try await client.postJSON("/v1/forms/claim/submissions", #"{"values": {"photo": "\#(id)"}}"#)
        #expect(submitted.status == 201, "\(submitted.text)")
        let stored = (submitted.object["values"] as? [String: Any])?["photo"] as? [String: Any]
        #expect(stored?["sha256"] as? String == FileFixtures.sha256Hex(png))
        #expect(stored?["contentType"] as? String == "image/png")
        #expect(try await client.admin("GET", "/v1/admin/files/\(id)").body == png)
        // Bound to a submission, it is no longer the client's to delete.
        #expect(try await client.send("DELETE", path, headers: Self.tusHeaders()).status == 409)
        await server.finish()
    }

    @Test func aClientHoldsAsManyUnfinishedUploadsAsItMaySend() async throws {
        let server = try await UploadsAPITests.server { $0.uploadMaxInProgressPerClient = 2 }
        _ = try await Self.create(server.client, length: 100)
        _ = try await Self.create(server.client, length: 100)
        let third = try await server.client.send("POST", "/v1/forms/claim/tus/", headers: Self.tusHeaders([
            ("Upload-Length", "100"), ("Upload-Metadata", Self.metadata([("field", "photo")]))]))
        #expect(third.status == 429)
        #expect(third.object["type"] as? String == ProblemType.tooManyUploads.uri)
        await server.finish()
    }

    @Test func aSecondPatchOrADeleteWhileOneIsSendingIsRefusedAndTheFileStaysWhole() async throws {
        let server = try await UploadsAPITests.server()
        let client = server.client
        let png = FileFixtures.png
        let path = try await Self.create(client, length: png.count)
        let port = server.port
        // A PATCH that has sent its head and 10 bytes, then waits.
        let first = try await Offload.blocking { () -> Int32 in
            let fd = try TestSocket.connect(port: port)
            try TestSocket.send(fd, Array("PATCH \(path) HTTP/1.1\r\nHost: x\r\nTus-Resumable: 1.0.0\r\nUpload-Offset: 0\r\nContent-Type: application/offset+octet-stream\r\nContent-Length: \(png.count)\r\n\r\n".utf8) + png[..<10])
            return fd
        }
        // Its bytes reached the staged file: it holds the upload.
        let staged = server.data.path + "/uploads-staging/" + String(path.split(separator: "/").last!)
        try await WebhooksAPITests.wait("the first PATCH's bytes") {
            ((try? FileManager.default.attributesOfItem(atPath: staged))?[.size] as? Int) == 10
        }
        let second = try await Self.patch(client, path, offset: 0, png)
        #expect(second.status == 409)
        #expect(second.object["type"] as? String == ProblemType.uploadBusy.uri)
        #expect(try await client.send("DELETE", path, headers: Self.tusHeaders()).status == 409)
        // The first goes on and finishes the file.
        let reply = try await Offload.blocking { () -> [UInt8] in
            defer { close(first) }
            try TestSocket.send(first, Array(png[10...]))
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
                let n = buffer.withUnsafeMutableBytes { recv(first, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { break }
                received += buffer[0..<n]
            }
            return received
        }
        #expect(String(decoding: reply, as: UTF8.self).hasPrefix("HTTP/1.1 204"), "\(String(decoding: reply, as: UTF8.self))")
        let id = String(path.split(separator: "/").last!)
        #expect(try await client.admin("GET", "/v1/admin/files/\(id)").body == png)
        await server.finish()
    }

    @Test func anUploadWhoseStorageFailedAtTheEndIsFinishedByItsNextHead() async throws {
        let server = try await UploadsAPITests.server()
        let client = server.client
        let png = FileFixtures.png
        let path = try await Self.create(client, length: png.count)
        let id = String(path.split(separator: "/").last!)
        // A directory where the file must go makes the move into storage fail.
        let obstacle = server.data.path + "/files/" + id
        try FileManager.default.createDirectory(atPath: obstacle + "/in-the-way", withIntermediateDirectories: true)
        let failed = try await Self.patch(client, path, offset: 0, png)
        #expect(failed.status == 503, "\(failed.text)")
        try FileManager.default.removeItem(atPath: obstacle)
        let head = try await client.send("HEAD", path, headers: Self.tusHeaders())
        #expect(head.status == 200)
        #expect(head.header("Upload-Offset") == String(png.count))
        #expect(head.header("Upload-Id") == id)
        let submitted = try await client.postJSON("/v1/forms/claim/submissions", #"{"values": {"photo": "\#(id)"}}"#)
        #expect(submitted.status == 201, "\(submitted.text)")
        #expect(((submitted.object["values"] as? [String: Any])?["photo"] as? [String: Any])?["sha256"] as? String
                == FileFixtures.sha256Hex(png))
        await server.finish()
    }

    @Test func terminationDeletesAnUnfinishedUpload() async throws {
        let server = try await UploadsAPITests.server()
        let client = server.client
        let path = try await Self.create(client, length: 100)
        #expect(try await Self.patch(client, path, offset: 0, Array(FileFixtures.png[..<30])).status == 204)
        let id = String(path.split(separator: "/").last!)
        #expect(FileManager.default.fileExists(atPath: server.data.path + "/uploads-staging/" + id))
        #expect(try await client.send("DELETE", path, headers: Self.tusHeaders()).status == 204)
        #expect(try await client.send("HEAD", path, headers: Self.tusHeaders()).status == 404)
        #expect(!FileManager.default.fileExists(atPath: server.data.path + "/uploads-staging/" + id))
        await server.finish()
    }

    @Test func anUnfinishedUploadExpires() async throws {
        let server = try await UploadsAPITests.server { $0.uploadKeepUnboundHours = 0.0002 }
        let client = server.client
        let path = try await Self.create(client, length: 100)
        try await Task.sleep(for: .milliseconds(900))
        let late = try await Self.patch(client, path, offset: 0, Array(FileFixtures.png[..<30]))
        #expect([404, 410].contains(late.status), "\(late.text)")
        try await WebhooksAPITests.wait("the sweeper") {
            try await client.send("HEAD", path, headers: Self.tusHeaders()).status == 404
        }
        await server.finish()
    }

    @Test func aFinishedUploadWhoseBytesContradictItsTypeIsRefused() async throws {
        let server = try await UploadsAPITests.server()
        let client = server.client
        let html = FileFixtures.html
        let path = try await Self.create(client, length: html.count, type: "image/png")
        let done = try await Self.patch(client, path, offset: 0, html)
        #expect(done.status == 422, "\(done.text)")
        #expect(try await client.send("HEAD", path, headers: Self.tusHeaders()).status == 404)
        await server.finish()
    }

    // MARK: A real client

    static func runTusClient(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Repo.root.appendingPathComponent("Tests/tus/tus_upload.py").path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    static func bigFile(in directory: String) throws -> (path: String, bytes: [UInt8]) {
        let bytes = FileFixtures.pdf(size: 20 << 20)
        let path = directory + "/big.pdf"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, bytes)
    }

    @Test func tuspyResumesThroughTwoCutsAndAServerKilledMidUpload() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let environment = ["FORMHOUSE_UPLOADS_MIN_FREE_BYTES": "0"]
        var server = try ServerProcess(dataDirectory: data.path + "/data", environment: environment)
        #expect(try await server.client.admin("PUT", "/v1/admin/forms/big", json: Self.bigForm).status == 201)
        let (file, bytes) = try Self.bigFile(in: data.path)

        // Two connections cut mid-PATCH: the client asks for the offset and resumes each time.
        let cut = try await Offload.blocking { [port = server.port] in
            try Self.runTusClient(["--port", String(port), "--form", "big", "--field", "doc", "--file", file, "--cuts", "2"])
        }
        #expect(cut.status == 0, "\(cut.output)")
        #expect(cut.output.contains("offset=\(bytes.count) cuts_left=0"), "\(cut.output)")
        let cutURL = try #require(cut.output.split(separator: "\n").last.map(String.init))
        let cutID = String(cutURL.split(separator: "/").last!)
        let first = try await server.client.admin("GET", "/v1/admin/files/\(cutID)")
        #expect(first.status == 200)
        #expect(first.body.count == bytes.count)
        #expect(FileFixtures.sha256Hex(first.body) == FileFixtures.sha256Hex(bytes))

        // Half sent, then the server is killed; a new one on the same data resumes the upload.
        let half = try await Offload.blocking { [port = server.port] in
            try Self.runTusClient(["--port", String(port), "--form", "big", "--field", "doc", "--file", file,
                                   "--stop-at", String(8 << 20)])
        }
        #expect(half.status == 0, "\(half.output)")
        let halfURL = try #require(half.output.split(separator: "\n").last.map(String.init))
        server.kill9()
        server = try ServerProcess(dataDirectory: data.path + "/data", environment: environment)
        let resumed = try await Offload.blocking { [port = server.port] in
            try Self.runTusClient(["--port", String(port), "--form", "big", "--field", "doc", "--file", file, "--url", halfURL])
        }
        #expect(resumed.status == 0, "\(resumed.output)")
        #expect(resumed.output.contains("offset=\(bytes.count)"), "\(resumed.output)")
        let id = String(halfURL.split(separator: "/").last!)
        let submitted = try await server.client.postJSON("/v1/forms/big/submissions", #"{"values": {"doc": "\#(id)"}}"#)
        #expect(submitted.status == 201, "\(submitted.text)")
        let stored = (submitted.object["values"] as? [String: Any])?["doc"] as? [String: Any]
        #expect(stored?["sha256"] as? String == FileFixtures.sha256Hex(bytes))
        #expect(stored?["size"] as? Int == bytes.count)
        #expect(server.terminate() == 0)
    }

    @Test func aServerKilledInTheMiddleOfAPatchResumesFromItsLastRecordedOffset() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let environment = ["FORMHOUSE_UPLOADS_MIN_FREE_BYTES": "0"]
        var server = try ServerProcess(dataDirectory: data.path + "/data", environment: environment)
        #expect(try await server.client.admin("PUT", "/v1/admin/forms/big", json: Self.bigForm).status == 201)
        let (file, bytes) = try Self.bigFile(in: data.path)
        let created = try await server.client.send("POST", "/v1/forms/big/tus/", headers: Self.tusHeaders([
            ("Upload-Length", String(bytes.count)), ("Upload-Metadata", Self.metadata([("field", "doc"), ("filetype", "application/pdf")]))]))
        let path = try #require(created.header("Location"))
        let id = String(path.split(separator: "/").last!)
        let staged = data.path + "/data/uploads-staging/" + id

        // One PATCH for the whole file, slowed down past 6 MiB; the server dies once 10 MiB are staged.
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        client.arguments = ["python3", Repo.root.appendingPathComponent("Tests/tus/tus_upload.py").path, "--port", String(server.port),
                            "--form", "big", "--field", "doc", "--file", file, "--url", "http://127.0.0.1:\(server.port)\(path)",
                            "--chunk-size", String(32 << 20), "--throttle-after", String(6 << 20), "--throttle-ms", "20"]
        client.standardOutput = FileHandle.nullDevice
        client.standardError = FileHandle.nullDevice
        try client.run()
        try await WebhooksAPITests.wait("10 MiB staged", seconds: 60) {
            ((try? FileManager.default.attributesOfItem(atPath: staged))?[.size] as? Int ?? 0) >= 10 << 20
        }
        server.kill9()
        // The client would retry against a server that is gone: it is stopped, as a phone losing its link would be.
        client.terminate()
        client.waitUntilExit()
        let stagedAtKill = (try FileManager.default.attributesOfItem(atPath: staged))[.size] as? Int ?? 0

        server = try ServerProcess(dataDirectory: data.path + "/data", environment: environment)
        let head = try await server.client.send("HEAD", path, headers: Self.tusHeaders())
        let offset = try #require(head.header("Upload-Offset").flatMap { Int($0) })
        // Recorded every 4 MiB while the PATCH ran: at least two records, never past what was staged.
        #expect(offset >= 8 << 20, "\(offset)")
        #expect(offset <= stagedAtKill && offset < bytes.count, "\(offset) of \(stagedAtKill) staged")
        let resumed = try await Offload.blocking { [port = server.port] in
            try Self.runTusClient(["--port", String(port), "--form", "big", "--field", "doc", "--file", file,
                                   "--url", "http://127.0.0.1:\(port)\(path)"])
        }
        #expect(resumed.status == 0, "\(resumed.output)")
        let submitted = try await server.client.postJSON("/v1/forms/big/submissions", #"{"values": {"doc": "\#(id)"}}"#)
        #expect(submitted.status == 201, "\(submitted.text)")
        let stored = (submitted.object["values"] as? [String: Any])?["doc"] as? [String: Any]
        #expect(stored?["sha256"] as? String == FileFixtures.sha256Hex(bytes))
        #expect(server.terminate() == 0)
    }
}
