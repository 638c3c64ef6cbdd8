import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Objects as files under one directory: a key's components are its path below it.
///
/// A writer fills a file under `.partial/`, syncs it, renames it into place and syncs the directory,
/// so an object is either absent or whole, even after a crash.
public struct LocalBlobStorage: BlobStorage {
    /// The directory holding the objects.
    public let directory: String
    private let partialDirectory: String
    /// Whether objects are synced to the disk before they count as stored (false only for
    /// benchmarks, as the database's `synchronous = NORMAL` is).
    public let durable: Bool

    /// How old a partial file must be to count as left by a crashed process rather than by a writer
    /// still at work.
    static let abandonedPartialAge: TimeInterval = 24 * 60 * 60

    /// Uses `directory`, creating it and its `.partial/` subdirectory when missing, and removes the
    /// partial files that a crashed process left there more than a day ago.
    public init(directory: String, durable: Bool = true) throws {
        self.durable = durable
        guard !directory.isEmpty else { throw BlobStorageError.invalidLocation("the storage directory is empty.") }
        var root = directory
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        self.directory = root
        partialDirectory = root + "/.partial"
        try LocalFiles.makeDirectories(partialDirectory)
        try removeAbandonedPartials()
    }

    private func removeAbandonedPartials() throws {
        let files = FileManager.default
        let cutoff = Date().addingTimeInterval(-Self.abandonedPartialAge)
        for name in try files.contentsOfDirectory(atPath: partialDirectory) {
            let path = partialDirectory + "/" + name
            // A file gone meanwhile (another instance removed it) has no attributes: nothing to do.
            guard let modified = try? files.attributesOfItem(atPath: path)[.modificationDate] as? Date, modified < cutoff else { continue }
            if unlink(path) != 0 && errno != ENOENT {
                throw BlobStorageError.fileSystem(path: path, operation: "Removing the abandoned", errno: errno)
            }
        }
    }

    public func makeWriter(key: String, contentType: String) async throws -> any BlobWriter {
        let destination = try path(for: key)
        let partial = partialDirectory + "/" + Self.randomName()
        let descriptor = try LocalFiles.openFile(partial, O_WRONLY | O_CREAT | O_EXCL)
        return LocalBlobWriter(descriptor: descriptor, partialPath: partial, destination: destination, durable: durable)
    }

    public func store(key: String, contentType: String, fromFile path: String) async throws {
        let destination = try self.path(for: key)
        let source = try LocalFiles.openFile(path, O_RDONLY)
        defer { close(source) }
        if durable { try LocalFiles.sync(source, path: path) }
        let parent = LocalFiles.parentDirectory(of: destination)
        try LocalFiles.makeDirectories(parent)
        if rename(path, destination) == 0 {
            if durable { try LocalFiles.syncDirectory(parent) }
            return
        }
        // Another file system: copy through a writer, which syncs and renames like any upload.
        guard errno == EXDEV else { throw BlobStorageError.fileSystem(path: path, operation: "Renaming", errno: errno) }
        try await makeWriter(key: key, contentType: contentType).finish(copying: source, path: path, chunkSize: 1 << 20)
    }

    public func read(key: String, chunkSize: Int, _ body: @Sendable ([UInt8]) async throws -> Void) async throws {
        precondition(chunkSize > 0, "chunkSize must be positive")
        let path = try path(for: key)
        guard try LocalFiles.fileSize(path) != nil else { throw BlobStorageError.notFound(key: key) }
        let descriptor: Int32
        do {
            descriptor = try LocalFiles.openFile(path, O_RDONLY)
        } catch {
            // Deleted between the check and the open.
            if case .fileSystem(_, _, ENOENT) = error { throw BlobStorageError.notFound(key: key) }
            throw error
        }
        defer { close(descriptor) }
        while true {
            let chunk = try LocalFiles.readChunk(descriptor, upTo: chunkSize, path: path)
            if chunk.isEmpty { break }
            try await body(chunk)
        }
    }

    public func size(key: String) async throws -> Int? {
        try LocalFiles.fileSize(path(for: key))
    }

    public func delete(key: String) async throws {
        let path = try path(for: key)
        if unlink(path) != 0 && errno != ENOENT && errno != ENOTDIR && errno != EISDIR {
            throw BlobStorageError.fileSystem(path: path, operation: "Deleting", errno: errno)
        }
    }

    public func checkReady() async throws {
        for path in [directory, partialDirectory] where access(path, W_OK | X_OK) != 0 {
            throw BlobStorageError.fileSystem(path: path, operation: "Checking write access to", errno: errno)
        }
    }

    private func path(for key: String) throws(BlobStorageError) -> String {
        directory + "/" + (try BlobKey.components(of: key)).joined(separator: "/")
    }

    private static func randomName() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
