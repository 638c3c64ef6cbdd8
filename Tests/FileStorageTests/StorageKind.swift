@testable import FileStorage
import FileStorageTestSupport
import Foundation
import Logging
import Testing

/// The storages the shared suite runs against: each test takes a fresh, empty one.
enum StorageKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `LocalBlobStorage` in a temporary directory.
    case local
    /// `S3BlobStorage` on a fresh bucket of the test `moto_server`, with 5 MiB parts.
    case s3

    var testDescription: String { rawValue }

    /// Runs `body` with a fresh storage of this kind.
    func withStorage<T>(_ body: (StorageFixture) async throws -> T) async throws -> T {
        switch self {
        case .local:
            let directory = TemporaryDirectory()
            return try await body(StorageFixture(storage: try LocalBlobStorage(directory: directory.path), local: directory.path, bucket: nil))
        case .s3:
            let moto = try await MotoServer.shared()
            let bucket = try await moto.makeBucket()
            let storage = S3BlobStorage(location: try moto.location(bucket: bucket), partSize: S3BlobStorage.minimumPartSize, logger: Logger(label: "test"))
            return try await body(StorageFixture(storage: storage, local: nil, bucket: bucket))
        }
    }
}

/// A storage under test, and where to look at what it left behind.
struct StorageFixture: Sendable {
    let storage: any BlobStorage
    /// The local storage's directory.
    let local: String?
    /// The S3 storage's bucket on `MotoServer.shared()`.
    let bucket: String?

    /// Whether anything of an unfinished object remains: a file under `.partial/`, or a multipart
    /// upload in progress in the bucket.
    func leftovers() async throws -> [String] {
        if let local {
            return try FileManager.default.contentsOfDirectory(atPath: local + "/.partial")
        }
        let listing = try await MotoServer.shared().s3("GET", "/\(bucket!)?uploads=")
        #expect(listing.status == 200)
        let text = String(decoding: listing.body, as: UTF8.self)
        return text.components(separatedBy: "<Upload>").dropFirst().map { String($0.prefix(200)) }
    }

    /// For S3, how many parts the object was uploaded in (from the `-N` suffix S3 gives a multipart
    /// object's ETag); 1 for a plain PutObject; nil on local storage.
    func partCount(key: String) async throws -> Int? {
        guard let bucket else { return nil }
        let head = try await MotoServer.shared().s3("HEAD", "/\(bucket)/\(key)")
        let etag = try #require(head.etag).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        guard let dash = etag.lastIndex(of: "-") else { return 1 }
        return Int(etag[etag.index(after: dash)...])
    }
}

/// A directory under the system's temp directory, removed when the fixture goes away.
final class TemporaryDirectory: Sendable {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("formhouse-files-\(UUID().uuidString)").path
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// `count` reproducible pseudo-random bytes (a 64-bit LCG), so that offsets and parts cannot line up by chance.
func testBytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { buffer in
        var offset = 0
        while offset < count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var word = state >> 11
            let take = min(8, count - offset)
            withUnsafeBytes(of: &word) { buffer.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: take) }
            offset += take
        }
    }
    return bytes
}
