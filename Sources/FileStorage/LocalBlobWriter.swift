import CFileSync
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Appends to a file under `.partial/` and renames it into place when finished.
final class LocalBlobWriter: BlobWriter {
    private struct State {
        var descriptor: Int32?
        var size = 0
        /// Bytes whose writeback has been started.
        var flushed = 0
    }

    /// How much is written before writeback of it is started: the disk works while the rest
    /// arrives, and `finish`'s fsync waits for the last stretch only.
    static let writebackBytes = 4 << 20

    private let partialPath: String
    private let destination: String
    private let durable: Bool
    private let state: Mutex<State>

    init(descriptor: Int32, partialPath: String, destination: String, durable: Bool) {
        self.partialPath = partialPath
        self.destination = destination
        self.durable = durable
        state = Mutex(State(descriptor: descriptor))
    }

    deinit {
        // A writer dropped without finish or abort leaves no partial file behind.
        state.withLock { state in
            if let descriptor = state.descriptor {
                close(descriptor)
                unlink(partialPath)
            }
        }
    }

    func append(_ bytes: [UInt8]) async throws {
        try state.withLock { state throws(BlobStorageError) in
            guard let descriptor = state.descriptor else { throw .writerClosed }
            try LocalFiles.writeAll(descriptor, bytes, path: partialPath)
            state.size += bytes.count
            if durable, state.size - state.flushed >= Self.writebackBytes {
                // Only a hint to the kernel: finish's fsync is what makes the bytes durable.
                _ = cfilesync_start_writeback(descriptor, Int64(state.flushed), Int64(state.size - state.flushed))
                state.flushed = state.size
            }
        }
    }

    func finish() async throws -> Int {
        let (descriptor, size) = try state.withLock { state throws(BlobStorageError) in
            guard let descriptor = state.descriptor else { throw BlobStorageError.writerClosed }
            state.descriptor = nil
            return (descriptor, state.size)
        }
        let synced = Result { () throws(BlobStorageError) in if durable { try LocalFiles.sync(descriptor, path: partialPath) } }
        close(descriptor)
        do {
            try synced.get()
            let parent = LocalFiles.parentDirectory(of: destination)
            try LocalFiles.makeDirectories(parent)
            if rename(partialPath, destination) != 0 {
                throw BlobStorageError.fileSystem(path: destination, operation: "Renaming into", errno: errno)
            }
            if durable { try LocalFiles.syncDirectory(parent) }
        } catch {
            unlink(partialPath)
            throw error
        }
        return size
    }

    func abort() async {
        guard let descriptor = state.withLock({ state in defer { state.descriptor = nil }; return state.descriptor }) else { return }
        close(descriptor)
        unlink(partialPath)
    }
}
