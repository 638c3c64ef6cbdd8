#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The POSIX calls local storage makes, each turning a failure into `BlobStorageError.fileSystem`.
enum LocalFiles {
    static func openFile(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(BlobStorageError) -> Int32 {
        let descriptor = retryingInterrupts { open(path, flags | O_CLOEXEC, mode) }
        if descriptor < 0 { throw .fileSystem(path: path, operation: "Opening", errno: errno) }
        return descriptor
    }

    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], path: String) throws(BlobStorageError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                retryingInterrupts { write(descriptor, buffer.baseAddress! + written, buffer.count - written) }
            }
            if count < 0 { throw .fileSystem(path: path, operation: "Writing", errno: errno) }
            written += count
        }
    }

    /// Up to `count` bytes from the descriptor's position; fewer only at the end of the file.
    static func readChunk(_ descriptor: Int32, upTo count: Int, path: String) throws(BlobStorageError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                retryingInterrupts { read(descriptor, buffer.baseAddress! + filled, count - filled) }
            }
            if got < 0 { throw .fileSystem(path: path, operation: "Reading", errno: errno) }
            if got == 0 { break }
            filled += got
        }
        bytes.removeLast(count - filled)
        return bytes
    }

    static func sync(_ descriptor: Int32, path: String) throws(BlobStorageError) {
        if fsync(descriptor) != 0 { throw .fileSystem(path: path, operation: "Syncing", errno: errno) }
    }

    /// Makes a rename or an unlink in `directory` durable.
    static func syncDirectory(_ directory: String) throws(BlobStorageError) {
        let descriptor = try openFile(directory, O_RDONLY | O_DIRECTORY)
        defer { close(descriptor) }
        try sync(descriptor, path: directory)
    }

    /// Creates `path` and its missing ancestors, syncing the parent of each one created so that it
    /// survives a crash along with the file about to be renamed into it.
    static func makeDirectories(_ path: String) throws(BlobStorageError) {
        if isDirectory(path) { return }
        let parent = parentDirectory(of: path)
        if parent != path { try makeDirectories(parent) }
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw .fileSystem(path: path, operation: "Creating the directory", errno: errno)
        }
        try syncDirectory(parent)
    }

    static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    /// The size of the regular file at `path`, or nil when there is none (a directory is none).
    static func fileSize(_ path: String) throws(BlobStorageError) -> Int? {
        var status = stat()
        if stat(path, &status) == 0 { return status.st_mode & S_IFMT == S_IFREG ? Int(status.st_size) : nil }
        if errno == ENOENT || errno == ENOTDIR { return nil }
        throw .fileSystem(path: path, operation: "Reading the status of", errno: errno)
    }

    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func retryingInterrupts<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}
