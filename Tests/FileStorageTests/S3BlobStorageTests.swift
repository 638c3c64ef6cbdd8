@testable import FileStorage
import FileStorageTestSupport
import Foundation
import Logging
import Testing

/// What only S3 storage does: signing, errors the service sends, the location and its prefix.
@Suite struct S3BlobStorageTests {
    private func storage(_ location: S3Location) -> S3BlobStorage {
        S3BlobStorage(location: location, partSize: S3BlobStorage.minimumPartSize, logger: Logger(label: "test"))
    }

    private func put(_ storage: S3BlobStorage, key: String) async throws {
        let writer = try await storage.makeWriter(key: key, contentType: "text/plain")
        try await writer.append(Array("signed".utf8))
        _ = try await writer.finish()
    }

    @Test func badCredentialsAreRefusedClearly() async throws {
        let moto = try await MotoServer.shared()
        let bucket = try await moto.makeBucket()
        let unknown = storage(try S3Location(
            url: "s3://\(bucket)", endpoint: moto.endpoint, region: moto.region, accessKeyId: "AKIAUNKNOWNUNKNOWN00", secretAccessKey: "nope"))
        await #expect(throws: BlobStorageError.refused(status: 403, code: "InvalidAccessKeyId", message: nil)) {
            do { try await put(unknown, key: "upl_x") } catch let .refused(status, code, _) as BlobStorageError {
                throw BlobStorageError.refused(status: status, code: code, message: nil)
            }
        }
        let wrongSecret = storage(try S3Location(
            url: "s3://\(bucket)", endpoint: moto.endpoint, region: moto.region, accessKeyId: moto.accessKeyId, secretAccessKey: "wrong-secret"))
        let error = await #expect(throws: BlobStorageError.self) { try await put(wrongSecret, key: "upl_x") }
        guard case .refused(403, "SignatureDoesNotMatch", _) = error else {
            Issue.record("a wrong secret gave \(String(describing: error))")
            return
        }
        #expect(!"\(error!)".contains("wrong-secret"))
        await #expect(throws: BlobStorageError.self) { try await wrongSecret.checkReady() }
        #expect(try await storage(moto.location(bucket: bucket)).size(key: "upl_x") == nil)
    }

    @Test func aMissingBucketIsNotReady() async throws {
        let moto = try await MotoServer.shared()
        let missing = storage(try moto.location(bucket: "no-such-bucket-here"))
        await #expect(throws: BlobStorageError.refused(status: 404, code: nil, message: nil)) { try await missing.checkReady() }
        try await storage(moto.location(bucket: try await moto.makeBucket())).checkReady()
    }

    @Test func aClosedPortIsUnreachable() async throws {
        let location = try S3Location(url: "s3://bucket", endpoint: "http://127.0.0.1:1", region: "us-east-1", accessKeyId: "a", secretAccessKey: "b")
        let error = await #expect(throws: BlobStorageError.self) { try await storage(location).checkReady() }
        guard case .unreachable = error else {
            Issue.record("a closed port gave \(String(describing: error))")
            return
        }
    }

    @Test func keysGoUnderThePrefix() async throws {
        let moto = try await MotoServer.shared()
        let bucket = try await moto.makeBucket()
        let prefixed = storage(try moto.location(bucket: bucket, prefix: "/uploads/2026/"))
        try await put(prefixed, key: "forms/f1/upl_a")
        #expect(try await moto.s3("HEAD", "/\(bucket)/uploads/2026/forms/f1/upl_a").status == 200)
        #expect(try await moto.s3("HEAD", "/\(bucket)/forms/f1/upl_a").status == 404)
        #expect(try await prefixed.size(key: "forms/f1/upl_a") == 6)
    }

    @Test func theLocationIsReadAndKeepsItsSecret() throws {
        let location = try S3Location(
            url: "s3://my-bucket/a/b/", endpoint: nil, region: "eu-west-1", accessKeyId: "AKIAEXAMPLE", secretAccessKey: "s3cr3t/+key")
        #expect(location.bucket == "my-bucket")
        #expect(location.prefix == "a/b/")
        #expect(location.endpoint.absoluteString == "https://s3.eu-west-1.amazonaws.com")
        var dumped = ""
        dump(location, to: &dumped)
        for text in [location.description, String(reflecting: location), "\(location)", dumped] {
            #expect(!text.contains("s3cr3t"), "\(text)")
            #expect(text.contains("my-bucket"))
        }
        let bare = try S3Location(url: "s3://bucket", endpoint: "http://minio:9000/", region: "us-east-1", accessKeyId: "a", secretAccessKey: "b")
        #expect(bare.prefix == "")
        #expect(bare.endpoint.absoluteString == "http://minio:9000")
        for (url, endpoint) in [("http://bucket", nil), ("s3://", nil), ("s3://UPPER", nil), ("s3://ab", nil), ("s3://bucket/../x", nil),
                                ("s3://bucket", "ftp://host"), ("s3://bucket", "http://user:pw@host"), ("s3://bucket", "http://host/path")] as [(String, String?)] {
            #expect(throws: BlobStorageError.self, "\(url) \(endpoint ?? "")") {
                try S3Location(url: url, endpoint: endpoint, region: "us-east-1", accessKeyId: "a", secretAccessKey: "b")
            }
        }
    }

    @Test func keysArePercentEncodedForSigning() {
        #expect(S3BlobStorage.percentEncoded("a/b c+d~é", keepingSlashes: true) == "a/b%20c%2Bd~%C3%A9")
        #expect(S3BlobStorage.percentEncoded("x/y=", keepingSlashes: false) == "x%2Fy%3D")
    }
}
