import FileStorage
import Foundation
import Testing

/// Where local storage puts its files.
@Suite struct LocalBlobStorageTests {
    @Test func anUnfinishedObjectLivesUnderPartial() async throws {
        let directory = TemporaryDirectory()
        let storage = try LocalBlobStorage(directory: directory.path + "/")
        #expect(storage.directory == directory.path)
        let writer = try await storage.makeWriter(key: "forms/f1/upl_a", contentType: "text/plain")
        try await writer.append(Array("partial".utf8))
        let partials = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/.partial")
        #expect(partials.count == 1)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/forms"))
        #expect(try await writer.finish() == 7)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path + "/.partial").isEmpty)
        #expect(FileManager.default.contents(atPath: directory.path + "/forms/f1/upl_a") == Data("partial".utf8))
    }

    @Test func partialFilesOlderThanADayGoAtStart() async throws {
        let directory = TemporaryDirectory()
        _ = try LocalBlobStorage(directory: directory.path)
        let old = directory.path + "/.partial/old"
        let recent = directory.path + "/.partial/recent"
        for path in [old, recent] { try Data("x".utf8).write(to: URL(fileURLWithPath: path)) }
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-25 * 60 * 60)], ofItemAtPath: old)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-23 * 60 * 60)], ofItemAtPath: recent)
        _ = try LocalBlobStorage(directory: directory.path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path + "/.partial") == ["recent"])
        #expect(throws: BlobStorageError.self) { try LocalBlobStorage(directory: "") }
    }

    @Test func storeMovesTheFileIntoPlace() async throws {
        let directory = TemporaryDirectory()
        let storage = try LocalBlobStorage(directory: directory.path)
        let staged = directory.path + "/staged"
        try Data("tus bytes".utf8).write(to: URL(fileURLWithPath: staged))
        try await storage.store(key: "upl_tus", contentType: "text/plain", fromFile: staged)
        #expect(!FileManager.default.fileExists(atPath: staged))
        #expect(FileManager.default.contents(atPath: directory.path + "/upl_tus") == Data("tus bytes".utf8))
    }

    @Test func checkReadyFailsWithoutTheDirectory() async throws {
        let directory = TemporaryDirectory()
        let storage = try LocalBlobStorage(directory: directory.path)
        try await storage.checkReady()
        try FileManager.default.removeItem(atPath: directory.path)
        let error = await #expect(throws: BlobStorageError.self) { try await storage.checkReady() }
        #expect(error.map { "\($0)" }?.contains(directory.path) == true)
    }

    @Test func aKeyNamingADirectoryIsNoObject() async throws {
        let directory = TemporaryDirectory()
        let storage = try LocalBlobStorage(directory: directory.path)
        let writer = try await storage.makeWriter(key: "a/b", contentType: "text/plain")
        _ = try await writer.finish()
        await #expect(throws: BlobStorageError.notFound(key: "a")) { try await storage.read(key: "a", chunkSize: 10) { _ in } }
        #expect(try await storage.size(key: "a") == nil)
        #expect(try await storage.size(key: "a/b/c") == nil)
        try await storage.delete(key: "a")
        #expect(try await storage.size(key: "a/b") == 0)
    }
}
