import Glibc

/// A whole file's bytes, read with plain reads so that pipes (`/dev/stdin`, `<(…)`) work as well as
/// files, bounded so that `/dev/zero` ends. Static files, the configuration file and `formhouse check`
/// read through it.
public enum FileBytes {
    /// Why a file could not be read: the system's reason (`No such file or directory`, `Is a
    /// directory`, `Permission denied`) with its `errno`, or the limit passed (`errno` 0).
    public struct ReadError: Error, CustomStringConvertible, Sendable {
        public var errno: Int32
        public var reason: String
        public var description: String { reason }
    }

    public static func read(_ path: String, limit: Int = 64 << 20) throws(ReadError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw systemError() }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if Glibc.errno == EINTR { continue }
                throw systemError()
            }
            bytes.append(contentsOf: chunk[..<count])
            if bytes.count > limit { throw ReadError(errno: 0, reason: "larger than \(limit) bytes") }
        }
    }

    private static func systemError() -> ReadError {
        let code = Glibc.errno
        return ReadError(errno: code, reason: String(cString: strerror(code)))
    }
}
