import Foundation
import Testing
@testable import FormhouseApp

/// Simple uploads over real sockets: real file bytes checked against their type and the input's
/// limits, bound to a submission in its transaction, downloaded back as attachments.
@Suite struct UploadsAPITests {
    static func server(_ configure: (inout AppConfiguration) -> Void = { _ in }) async throws -> InProcessServer {
        let server = try await InProcessServer { configuration in
            // The machine's free space is not the test's business, except where a test says so.
            configuration.uploadMinFreeBytes = 0
            configure(&configuration)
        }
        for form in [FileFixtures.claimForm, FileFixtures.otherForm] {
            let id = form.contains("\"claim\"") ? "claim" : "other"
            let saved = try await server.client.admin("PUT", "/v1/admin/forms/\(id)", json: form)
            #expect(saved.status == 201, "\(saved.text)")
        }
        return server
    }

    static func upload(
        _ client: TestHTTPClient, form: String = "claim", field: String, type: String, _ bytes: [UInt8], filename: String? = nil
    ) async throws -> TestResponse {
        var headers = [("Content-Type", type)]
        if let filename { headers.append(("Content-Disposition", "attachment; filename=\"\(filename)\"")) }
        return try await client.send("POST", "/v1/forms/\(form)/uploads?field=\(field)", headers: headers, body: bytes)
    }

    @Test func aJPEGAPNGAndAPDFAreStoredHashedAndDownloadedBack() async throws {
        let server = try await Self.server()
        let client = server.client
        var ids: [String: [UInt8]] = [:]
        for (field, type, bytes, name) in [("photo", "image/jpeg", FileFixtures.jpeg, "photo.jpg"),
                                           ("docs", "image/png", FileFixtures.png, "scan.png"),
                                           ("docs", "application/pdf", FileFixtures.pdf, "contract.pdf")] {
            let reply = try await Self.upload(client, field: field, type: type, bytes, filename: name)
            #expect(reply.status == 201, "\(reply.text)")
            let object = reply.object
            #expect(object["contentType"] as? String == type)
            #expect(object["size"] as? Int == bytes.count)
            #expect(object["sha256"] as? String == FileFixtures.sha256Hex(bytes))
            #expect(object["filename"] as? String == name)
            #expect(object["field"] as? String == field)
            #expect((object["id"] as? String)?.hasPrefix("upl_") == true)
            ids[object["id"] as! String] = bytes
        }
        let photo = ids.first { $0.value == FileFixtures.jpeg }!.key
        let docs = ids.keys.filter { $0 != photo }.sorted()
        let submitted = try await client.postJSON("/v1/forms/claim/submissions",
            #"{"values": {"name": "Ana", "photo": "\#(photo)", "docs": ["\#(docs[0])", "\#(docs[1])"]}}"#)
        #expect(submitted.status == 201, "\(submitted.text)")
        let values = submitted.object["values"] as? [String: Any]
        let stored = values?["photo"] as? [String: Any]
        #expect(stored?["id"] as? String == photo)
        #expect(stored?["sha256"] as? String == FileFixtures.sha256Hex(FileFixtures.jpeg))
        #expect(stored?["url"] == nil, "links are for webhook receivers only")
        #expect((values?["docs"] as? [[String: Any]])?.count == 2)

        for (id, bytes) in ids {
            let download = try await client.admin("GET", "/v1/admin/files/\(id)")
            #expect(download.status == 200)
            #expect(download.body == bytes)
            #expect(download.header("Content-Disposition")?.hasPrefix("attachment") == true)
            #expect(download.header("X-Content-Type-Options") == "nosniff")
            #expect(download.header("Content-Security-Policy") == "sandbox")
        }
        #expect(try await client.get("/v1/admin/files/\(photo)").status == 401)
        await server.finish()
    }

    @Test func aJPGThatIsReallyHTMLIsRefused() async throws {
        let server = try await Self.server()
        let reply = try await Self.upload(server.client, field: "photo", type: "image/jpeg", FileFixtures.html, filename: "cat.jpg")
        #expect(reply.status == 422, "\(reply.text)")
        let errors = reply.object["errors"] as? [[String: Any]]
        #expect(errors?.first?["code"] as? String == "fileType")
        #expect(errors?.first?["field"] as? String == "photo")
        // A type the input does not take is refused before a byte is read.
        let pdf = try await Self.upload(server.client, field: "photo", type: "application/pdf", FileFixtures.pdf)
        #expect(pdf.status == 422)
        // Bytes of no known format, sent as "anything", are not an image.
        let unknown = try await Self.upload(server.client, field: "photo", type: "application/octet-stream", Array("plain words".utf8))
        #expect(unknown.status == 422, "\(unknown.text)")
        // Sent as "anything", a PNG is kept as what it is.
        let png = try await Self.upload(server.client, field: "photo", type: "application/octet-stream", FileFixtures.png)
        #expect(png.object["contentType"] as? String == "image/png")
        await server.finish()
    }

    /// A refused upload speaks the request's language, as a refused submission does.
    @Test func aRefusedUploadSpeaksTheRequestsLanguage() async throws {
        let server = try await Self.server()
        let message = { (reply: TestResponse) in (reply.object["errors"] as? [[String: Any]])?.first?["message"] as? String }
        let disguised = try await server.client.send("POST", "/v1/forms/claim/uploads?field=photo",
                                                     headers: [("Content-Type", "image/jpeg"), ("Accept-Language", "pt-BR")], body: FileFixtures.html)
        #expect(disguised.status == 422)
        #expect(message(disguised) == "O conteúdo do arquivo é text/html, não image/jpeg.", "\(disguised.text)")
        #expect(disguised.header("Content-Language") == "pt-BR" && disguised.header("Vary")?.contains("Accept-Language") == true)
        let pdf = try await server.client.send("POST", "/v1/forms/claim/uploads?field=photo&lang=es",
                                               headers: [("Content-Type", "application/pdf")], body: FileFixtures.pdf)
        #expect(message(pdf)?.hasPrefix("Este tipo de archivo (application/pdf) no se acepta aquí") == true, "\(pdf.text)")
        let english = try await Self.upload(server.client, field: "photo", type: "application/pdf", FileFixtures.pdf)
        #expect(message(english)?.hasPrefix("This kind of file (application/pdf) is not accepted here") == true)
        await server.finish()
    }

    @Test func oneByteOverMaxSizeIs413AndNothingIsKept() async throws {
        let server = try await Self.server()
        var big = FileFixtures.jpeg
        big += [UInt8](repeating: 0, count: 200_001 - big.count)
        let declared = try await Self.upload(server.client, field: "photo", type: "image/jpeg", big)
        #expect(declared.status == 413, "\(declared.text)")
        #expect(declared.object["type"] as? String == ProblemType.fileTooLarge.uri)
        #expect(declared.object["maxSize"] as? Int == 200_000)
        // Without a length, the body is refused as it passes the limit.
        var raw = "POST /v1/forms/claim/uploads?field=photo HTTP/1.1\r\nHost: x\r\nContent-Type: image/jpeg\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        raw += String(big.count, radix: 16) + "\r\n"
        let chunked = try await Offload.blocking { [client = server.client, raw, big] in
            try client.exchange(Array(raw.utf8) + big + Array("\r\n0\r\n\r\n".utf8), method: "POST")
        }
        #expect(chunked.status == 413, "\(chunked.text)")
        let exactly = try await Self.upload(server.client, field: "photo", type: "image/jpeg", Array(big.dropLast()))
        #expect(exactly.status == 201)
        let files = try FileManager.default.contentsOfDirectory(atPath: server.data.path + "/files")
            .filter { !$0.hasPrefix(".") }
        #expect(files.count == 1, "only the upload within the limit is kept: \(files)")
        await server.finish()
    }

    @Test func maxFilesAndUploadsOfAnotherFormOrInputOrSubmissionAreRefused() async throws {
        let server = try await Self.server()
        let client = server.client
        func id(_ reply: TestResponse) -> String { reply.object["id"] as? String ?? "" }
        let photo = id(try await Self.upload(client, field: "photo", type: "image/png", FileFixtures.png))
        let docs = [try await Self.upload(client, field: "docs", type: "application/pdf", FileFixtures.pdf),
                    try await Self.upload(client, field: "docs", type: "application/pdf", FileFixtures.pdf),
                    try await Self.upload(client, field: "docs", type: "application/pdf", FileFixtures.pdf)].map(id)
        let foreign = id(try await Self.upload(client, form: "other", field: "photo", type: "image/png", FileFixtures.png))

        func codes(_ body: String) async throws -> [String: String] {
            let reply = try await client.postJSON("/v1/forms/claim/submissions", body)
            #expect(reply.status == 422, "\(reply.text)")
            var found: [String: String] = [:]
            for error in reply.object["errors"] as? [[String: Any]] ?? [] {
                found[error["field"] as? String ?? ""] = error["code"] as? String
            }
            return found
        }
        #expect(try await codes(#"{"values": {"photo": "\#(photo)", "docs": ["\#(docs[0])", "\#(docs[1])", "\#(docs[2])"]}}"#)
                == ["docs": "maxFiles"])
        #expect(try await codes(#"{"values": {"photo": "\#(foreign)"}}"#) == ["photo": "file"])
        #expect(try await codes(#"{"values": {"photo": "\#(docs[0])"}}"#) == ["photo": "file"])
        #expect(try await codes(#"{"values": {"photo": "upl_doesnotexist"}}"#) == ["photo": "file"])
        #expect(try await codes(#"{"values": {}}"#) == ["photo": "required"])

        let first = try await client.postJSON("/v1/forms/claim/submissions", #"{"values": {"photo": "\#(photo)"}}"#)
        #expect(first.status == 201, "\(first.text)")
        #expect(try await codes(#"{"values": {"photo": "\#(photo)"}}"#) == ["photo": "file"])
        await server.finish()
    }

    @Test func twoSubmissionsRacingForOneUploadStoreOne() async throws {
        let server = try await Self.server()
        let client = server.client
        let photo = try await Self.upload(client, field: "photo", type: "image/png", FileFixtures.png).object["id"] as? String ?? ""
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask { try await client.postJSON("/v1/forms/claim/submissions", #"{"values": {"photo": "\#(photo)"}}"#).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.sorted() == [201] + Array(repeating: 422, count: 7))
        await server.finish()
    }

    @Test func namesAreCleanedAndNeverReachAPath() async throws {
        let server = try await Self.server()
        let reply = try await Self.upload(server.client, field: "photo", type: "image/png", FileFixtures.png,
                                          filename: "../../etc/pass\u{202E}wd.png")
        #expect(reply.status == 201)
        #expect(reply.object["filename"] as? String == "passwd.png")
        let id = reply.object["id"] as? String ?? ""
        #expect(FileManager.default.fileExists(atPath: server.data.path + "/files/" + id))
        let download = try await server.client.admin("GET", "/v1/admin/files/\(id)")
        #expect(download.header("Content-Disposition") == "attachment; filename=\"passwd.png\"; filename*=UTF-8''passwd.png")
        await server.finish()
    }

    /// Which cap on uploads in progress a test reaches with a second upload.
    enum InProgressCap: String, CaseIterable, Sendable {
        case perClient, perNode

        func apply(_ configuration: inout AppConfiguration) {
            switch self {
            case .perClient: configuration.uploadMaxInProgressPerClient = 1
            case .perNode: configuration.uploadMaxInProgress = 1
            }
        }
    }

    @Test(arguments: InProgressCap.allCases)
    func uploadsInProgressAreCapped(_ cap: InProgressCap) async throws {
        let server = try await Self.server { cap.apply(&$0) }
        let port = server.port
        // One upload that has sent its head and part of its body, and waits.
        let slow = try await Offload.blocking { () -> Int32 in
            let fd = try TestSocket.connect(port: port)
            try TestSocket.send(fd, Array("POST /v1/forms/claim/uploads?field=photo HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\nContent-Length: 1000\r\n\r\n".utf8) + FileFixtures.png)
            return fd
        }
        // Its record is written once it holds its place.
        try await WebhooksAPITests.wait("the slow upload to begin") {
            try await server.app.store.incompleteUploadCount(clientAddress: nil, since: .distantPast) == 1
        }
        let reply = try await Self.upload(server.client, field: "photo", type: "image/png", FileFixtures.png)
        #expect(reply.status == 429)
        #expect(reply.object["type"] as? String == ProblemType.tooManyUploads.uri)
        #expect(reply.header("Retry-After") != nil)
        close(slow)
        await server.finish()
    }

    @Test func belowTheFreeSpaceFloorUploadsGet507() async throws {
        let server = try await Self.server { $0.uploadMinFreeBytes = 1 << 50 }
        let reply = try await Self.upload(server.client, field: "photo", type: "image/png", FileFixtures.png)
        #expect(reply.status == 507)
        #expect(reply.object["type"] as? String == ProblemType.insufficientStorage.uri)
        await server.finish()
    }

    @Test func aClientIsReadAtItsByteRate() async throws {
        let server = try await Self.server { $0.uploadBytesPerSecondPerClient = 1 << 20 }
        var bytes = FileFixtures.pdf
        bytes += [UInt8](repeating: 0x20, count: (3 << 20) - bytes.count)
        try await server.client.admin("PUT", "/v1/admin/forms/big", json: #"{"id": "big", "title": "Big", "components": [{"file": {"id": "doc", "title": "Doc", "maxSize": 10000000}}]}"#)
        let start = ContinuousClock.now
        let reply = try await Self.upload(server.client, form: "big", field: "doc", type: "application/pdf", bytes)
        let elapsed = ContinuousClock.now - start
        #expect(reply.status == 201, "\(reply.text)")
        // Three MiB at one MiB a second, with a second's worth in hand: at least two seconds.
        #expect(elapsed >= .milliseconds(1_800), "\(elapsed)")
        await server.finish()
    }

    @Test func unboundUploadsAreSweptWithTheirBytes() async throws {
        let server = try await Self.server { $0.uploadKeepUnboundHours = 0.0003 }
        let kept = try await Self.upload(server.client, field: "photo", type: "image/png", FileFixtures.png).object["id"] as? String ?? ""
        let bound = try await Self.upload(server.client, field: "photo", type: "image/jpeg", FileFixtures.jpeg).object["id"] as? String ?? ""
        #expect(try await server.client.postJSON("/v1/forms/claim/submissions", #"{"values": {"photo": "\#(bound)"}}"#).status == 201)
        var gone = false
        for _ in 0..<100 where !gone {
            try await Task.sleep(for: .milliseconds(100))
            gone = try await server.app.store.upload(id: kept) == nil
        }
        #expect(gone)
        #expect(!FileManager.default.fileExists(atPath: server.data.path + "/files/" + kept))
        #expect(FileManager.default.fileExists(atPath: server.data.path + "/files/" + bound))
        #expect(try await server.client.admin("GET", "/v1/admin/files/\(bound)").body == FileFixtures.jpeg)
        await server.finish()
    }

    @Test func theCSVExportHoldsAFileColumnsID() async throws {
        let server = try await Self.server()
        let photo = try await Self.upload(server.client, field: "photo", type: "image/png", FileFixtures.png).object["id"] as? String ?? ""
        #expect(try await server.client.postJSON("/v1/forms/claim/submissions", #"{"values": {"photo": "\#(photo)"}}"#).status == 201)
        let csv = try await server.client.admin("GET", "/v1/admin/forms/claim/submissions?format=csv")
        #expect(csv.text.contains(",\(photo),"), "\(csv.text)")
        await server.finish()
    }

    @Test func theFormworksProfileLeavesFilesOutOrRefusesARequiredOne() async throws {
        let server = try await Self.server()
        let required = try await server.client.get("/v1/forms/claim?profile=formworks")
        #expect(required.status == 409)
        #expect(required.object["type"] as? String == ProblemType.profileNeedsFiles.uri)
        let optional = try await server.client.get("/v1/forms/other?profile=formworks")
        #expect(optional.status == 200)
        #expect(!optional.text.contains("\"file\""))
        // The person filling it in is told what this app cannot ask for.
        #expect((optional.object["description"] as? String)?.contains("Files are not asked for in this app (Photo)") == true,
                "\(optional.text)")
        await server.finish()
    }
}
