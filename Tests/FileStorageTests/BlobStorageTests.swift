import Crypto
import FileStorage
import Foundation
import Synchronization
import Testing

/// What ``BlobStorage`` promises, checked on every storage.
@Suite struct BlobStorageTests {
    /// Reads `key` whole, checking that no chunk is larger than `chunkSize`.
    private func readAll(_ storage: any BlobStorage, key: String, chunkSize: Int) async throws -> [UInt8] {
        let collected = Mutex<[UInt8]>([])
        try await storage.read(key: key, chunkSize: chunkSize) { chunk in
            #expect(chunk.count <= chunkSize)
            #expect(!chunk.isEmpty)
            collected.withLock { $0 += chunk }
        }
        return collected.withLock { $0 }
    }

    @Test(arguments: StorageKind.allCases)
    func aSmallObjectReadsBackByteExact(_ kind: StorageKind) async throws {
        try await kind.withStorage { fixture in
            let bytes = testBytes(1000) + Array("\r\n\0end".utf8)
            let writer = try await fixture.storage.makeWriter(key: "upl_small", contentType: "application/octet-stream")
            try await writer.append(Array(bytes[..<10]))
            try await writer.append([])
            try await writer.append(Array(bytes[10...]))
            #expect(try await fixture.storage.size(key: "upl_small") == nil, "nothing is visible before finish")
            #expect(try await writer.finish() == bytes.count)
            #expect(try await fixture.storage.size(key: "upl_small") == bytes.count)
            #expect(try await readAll(fixture.storage, key: "upl_small", chunkSize: 100) == bytes)
            #expect(try await readAll(fixture.storage, key: "upl_small", chunkSize: 1 << 20) == bytes)
            #expect(try await fixture.partCount(key: "upl_small") ?? 1 == 1)
            #expect(try await fixture.leftovers().isEmpty)
        }
    }

    @Test(arguments: StorageKind.allCases)
    func anEmptyObjectIsStored(_ kind: StorageKind) async throws {
        try await kind.withStorage { fixture in
            let writer = try await fixture.storage.makeWriter(key: "upl_empty", contentType: "text/plain")
            #expect(try await writer.finish() == 0)
            #expect(try await fixture.storage.size(key: "upl_empty") == 0)
            #expect(try await readAll(fixture.storage, key: "upl_empty", chunkSize: 10).isEmpty)
        }
    }

    /// 20 MiB in 1 MiB appends: on S3 (5 MiB parts) a multipart upload of 4 parts.
    @Test(arguments: StorageKind.allCases)
    func aLargeObjectGoesInPartsAndReadsBackWhole(_ kind: StorageKind) async throws {
        try await kind.withStorage { fixture in
            let bytes = testBytes(20 * 1024 * 1024, seed: 20)
            let writer = try await fixture.storage.makeWriter(key: "forms/f1/upl_large", contentType: "image/jpeg")
            for start in stride(from: 0, to: bytes.count, by: 1 << 20) {
                try await writer.append(Array(bytes[start..<min(start + (1 << 20), bytes.count)]))
            }
            #expect(try await writer.finish() == bytes.count)
            #expect(try await fixture.storage.size(key: "forms/f1/upl_large") == bytes.count)
            if kind == .s3 {
                #expect(try await fixture.partCount(key: "forms/f1/upl_large") == 4)
            }
            let digest = Mutex(SHA256())
            let count = Mutex(0)
            // An odd chunk size, so that chunks straddle part boundaries.
            try await fixture.storage.read(key: "forms/f1/upl_large", chunkSize: 3 * 1024 * 1024 + 7) { chunk in
                #expect(chunk.count <= 3 * 1024 * 1024 + 7)
                digest.withLock { $0.update(data: chunk) }
                count.withLock { $0 += chunk.count }
            }
            #expect(count.withLock { $0 } == bytes.count)
            #expect(digest.withLock { $0.finalize() } == SHA256.hash(data: bytes))
            #expect(try await fixture.leftovers().isEmpty)
        }
    }

    @Test(arguments: StorageKind.allCases)
    func anObjectOfExactlyOnePartIsOnePut(_ kind: StorageKind) async throws {
        try await kind.withStorage { fixture in
            let bytes = testBytes(5 * 1024 * 1024, seed: 5)
            let writer = try await fixture.storage.makeWriter(key: "upl_one", contentType: "image/png")
            try await writer.append(bytes)
            #expect(try await writer.finish() == bytes.count)
            #expect(try await fixture.partCount(key: "upl_one") ?? 1 == 1)
            #expect(try await readAll(fixture.storage, key: "upl_one", chunkSize: 1 << 20) == bytes)
        }
    }

    /// Aborted after a part went out (on S3): neither the object nor the upload's parts remain.
    @Test(arguments: StorageKind.allCases)
    func abortLeavesNothing(_ kind: StorageKind) async throws {
        try await kind.withStorage { fixture in
            let writer = try await fixture.storage.makeWriter(key: "upl_aborted", contentType: "application/pdf")
            try await writer.append(testBytes(7 * 1024 * 1024, seed: 7))
            #expect(try await fixture.leftovers().count == 1, "the upload is under way")
            await writer.abort()
            #expect(try await fixture.storage.size(key: "upl_aborted") == nil)
            #expect(try await fixture.leftovers().isEmpty)
            await #expect(throws: BlobStorageError.writerClosed) { try await writer.append([1]) }
            await #expect(throws: BlobStorageError.writerClosed) { try await writer.finish() }
        }
    }

    @Test(arguments: StorageKind.allCases)
    func aFinishedWriterTakesNoMore(_ kind: StorageKind) async throws {
        try await kind.withStorage { fixture in
            let writer = try await fixture.storage.makeWriter(key: "upl_done", contentType: "text/plain")
            try await writer.append([1, 2, 3])
            #expect(try await writer.finish() == 3)
            await #expect(throws: BlobStorageError.writerClosed) { try await writer.append([4]) }
            await #expect(throws: BlobStorageError.writerClosed) { try await writer.finish() }
            await writer.abort()
            #expect(try await fixture.storage.size(key: "upl_done") == 3, "abort after finish keeps the object")
        }
    }

    /// 6 MiB from a local file (multipart on S3), and a small one.
    @Test(arguments: StorageKind.allCases)
    func storeFromFileKeepsTheBytes(_ kind: StorageKind) async throws {
        try await kind.withStorage { fixture in
            let staging = TemporaryDirectory()
            try FileManager.default.createDirectory(atPath: staging.path, withIntermediateDirectories: true)
            for (key, count) in [("upl_tus_large", 6 * 1024 * 1024 + 3), ("upl_tus_small", 12)] {
                let bytes = testBytes(count, seed: UInt64(count))
                let path = staging.path + "/" + key
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                try await fixture.storage.store(key: key, contentType: "video/mp4", fromFile: path)
                #expect(try await fixture.storage.size(key: key) == count)
                #expect(try await readAll(fixture.storage, key: key, chunkSize: 1 << 20) == bytes)
            }
            #expect(try await fixture.partCount(key: "upl_tus_large") ?? 2 == 2)
            await #expect(throws: BlobStorageError.self) {
                try await fixture.storage.store(key: "upl_none", contentType: "text/plain", fromFile: staging.path + "/missing")
            }
            #expect(try await fixture.storage.size(key: "upl_none") == nil)
            #expect(try await fixture.leftovers().isEmpty)
        }
    }

    @Test(arguments: StorageKind.allCases)
    func deleteRemovesAndToleratesMissing(_ kind: StorageKind) async throws {
        try await kind.withStorage { fixture in
            #expect(try await fixture.storage.size(key: "upl_gone") == nil)
            await #expect(throws: BlobStorageError.notFound(key: "upl_gone")) {
                try await fixture.storage.read(key: "upl_gone", chunkSize: 10) { _ in }
            }
            try await fixture.storage.delete(key: "upl_gone")
            let writer = try await fixture.storage.makeWriter(key: "upl_gone", contentType: "text/plain")
            try await writer.append(Array("bye".utf8))
            _ = try await writer.finish()
            let other = try await fixture.storage.makeWriter(key: "upl_kept", contentType: "text/plain")
            try await other.append(Array("stay".utf8))
            _ = try await other.finish()
            try await fixture.storage.delete(key: "upl_gone")
            #expect(try await fixture.storage.size(key: "upl_gone") == nil)
            #expect(try await fixture.storage.size(key: "upl_kept") == 4)
            try await fixture.storage.delete(key: "upl_gone")
            try await fixture.storage.checkReady()
        }
    }

    @Test(arguments: StorageKind.allCases)
    func badKeysAreRefused(_ kind: StorageKind) async throws {
        try await kind.withStorage { fixture in
            let staging = TemporaryDirectory()
            for key in ["", "/etc/passwd", "../escape", "a/../../b", "a/./b", "a//b", "trailing/", "nul\0byte", "line\nbreak", ".partial/x", ".hidden",
                        String(repeating: "k", count: 513)] {
                for operation in [
                    { _ = try await fixture.storage.makeWriter(key: key, contentType: "text/plain") },
                    { _ = try await fixture.storage.size(key: key) },
                    { try await fixture.storage.delete(key: key) },
                    { try await fixture.storage.read(key: key, chunkSize: 10) { _ in } },
                    { try await fixture.storage.store(key: key, contentType: "text/plain", fromFile: staging.path) },
                ] as [@Sendable () async throws -> Void] {
                    let error = await #expect(throws: BlobStorageError.self) { try await operation() }
                    guard case .badKey = error else {
                        Issue.record("\(String(reflecting: key)) gave \(String(describing: error)), not badKey")
                        continue
                    }
                }
            }
        }
    }
}
