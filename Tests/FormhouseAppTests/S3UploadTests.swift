import FileStorageTestSupport
import Foundation
import Testing
@testable import FormhouseApp

/// Uploads kept in S3 (a real moto_server that checks signatures): written in parts, read back,
/// and deleted from the bucket by the sweeper.
@Suite struct S3UploadTests {
    static let bigForm = #"{"id": "big", "title": "Big", "components": [{"file": {"id": "doc", "title": "Doc", "accept": ["application/pdf"], "maxSize": 31457280}}]}"#

    /// A server that keeps its files under `files/` in `bucket` on `moto`.
    static func server(
        _ moto: MotoServer, bucket: String, _ configure: (inout AppConfiguration) -> Void = { _ in }
    ) async throws -> InProcessServer {
        try await UploadsAPITests.server { configuration in
            configuration.storageURL = "s3://\(bucket)/files"
            configuration.storageEndpoint = moto.endpoint
            configuration.storageRegion = moto.region
            configuration.storageAccessKeyID = moto.accessKeyId
            configuration.storageSecretAccessKey = moto.secretAccessKey
            configure(&configuration)
        }
    }

    @Test func uploadsGoToTheBucketInPartsAreReadBackAndUnboundOnesAreSwept() async throws {
        let moto = try await MotoServer.shared()
        let bucket = try await moto.makeBucket()
        let server = try await Self.server(moto, bucket: bucket) { $0.uploadKeepUnboundHours = 0.003 }
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/big", json: Self.bigForm).status == 201)
        let bytes = FileFixtures.pdf(size: 12 << 20)

        let kept = try await UploadsAPITests.upload(client, form: "big", field: "doc", type: "application/pdf", bytes)
        #expect(kept.status == 201, "\(kept.text)")
        #expect(kept.object["sha256"] as? String == FileFixtures.sha256Hex(bytes))
        let keptID = try #require(kept.object["id"] as? String)
        #expect(try await client.postJSON("/v1/forms/big/submissions", #"{"values": {"doc": "\#(keptID)"}}"#).status == 201)
        let object = try await moto.s3("HEAD", "/\(bucket)/files/\(keptID)")
        #expect(object.status == 200)
        // 12 MiB in 8 MiB parts: a multipart object of two.
        #expect(object.etag?.hasSuffix("-2\"") == true, "\(object.etag ?? "no ETag")")
        #expect(try await client.admin("GET", "/v1/admin/files/\(keptID)").body == bytes)

        let loose = try await UploadsAPITests.upload(client, form: "big", field: "doc", type: "application/pdf", FileFixtures.pdf)
        let looseID = try #require(loose.object["id"] as? String)
        #expect(try await moto.s3("HEAD", "/\(bucket)/files/\(looseID)").status == 200)
        // The sweeper deletes the record first, then the object: wait for both.
        try await WebhooksAPITests.wait("the sweeper") {
            guard try await server.app.store.upload(id: looseID) == nil else { return false }
            return try await moto.s3("HEAD", "/\(bucket)/files/\(looseID)").status == 404
        }
        #expect(try await moto.s3("HEAD", "/\(bucket)/files/\(keptID)").status == 200)
        await server.finish()
    }

    @Test func aTusUploadIsStagedOnTheNodeAndMovedToTheBucketWhenItFinishes() async throws {
        let moto = try await MotoServer.shared()
        let bucket = try await moto.makeBucket()
        let server = try await Self.server(moto, bucket: bucket)
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/big", json: Self.bigForm).status == 201)
        let bytes = FileFixtures.pdf(size: 9 << 20)
        let created = try await client.send("POST", "/v1/forms/big/tus/", headers: TusTests.tusHeaders([
            ("Upload-Length", String(bytes.count)), ("Upload-Metadata", TusTests.metadata([("field", "doc"), ("filetype", "application/pdf")]))]))
        let path = try #require(created.header("Location"))
        let id = String(path.split(separator: "/").last!)
        #expect(try await TusTests.patch(client, path, offset: 0, Array(bytes[..<(5 << 20)])).status == 204)
        // Unfinished, it is only on the node's disk.
        #expect(try await moto.s3("HEAD", "/\(bucket)/files/\(id)").status == 404)
        #expect(try await TusTests.patch(client, path, offset: 5 << 20, Array(bytes[(5 << 20)...])).status == 204)
        let object = try await moto.s3("HEAD", "/\(bucket)/files/\(id)")
        #expect(object.status == 200)
        #expect(object.etag?.hasSuffix("-2\"") == true, "\(object.etag ?? "no ETag")")
        #expect(!FileManager.default.fileExists(atPath: server.data.path + "/uploads-staging/" + id))
        let submitted = try await client.postJSON("/v1/forms/big/submissions", #"{"values": {"doc": "\#(id)"}}"#)
        #expect(submitted.status == 201, "\(submitted.text)")
        #expect(try await client.admin("GET", "/v1/admin/files/\(id)").body == bytes)
        await server.finish()
    }
}
