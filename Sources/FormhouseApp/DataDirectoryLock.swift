import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One server per data directory: the form catalog and the version cache trust that this process
/// is the only writer, so a second server on the same directory would serve forms the first had
/// replaced or deleted. An advisory `flock` on `formhouse.lock` is held for the process's life;
/// the kernel drops it when the process ends, however it ends. Other commands that must not run
/// beside a server (`formhouse migrate`) take it too.
public final class DataDirectoryLock: Sendable {
    private let fd: Int32

    /// Takes the lock, creating the directory when missing; throws a ``ConfigurationError`` that
    /// names the holder's pid, followed by `whenHeld`, when another process holds it.
    public init(directory: URL, whenHeld: String = "one server per data directory") throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            // Foundation's message is an NSError dump; the POSIX reason underneath is what helps.
            let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey].flatMap { $0 as? any Error }.map { $0 as NSError }
            let reason = underlying.map { $0.domain == NSPOSIXErrorDomain ? String(cString: strerror(Int32($0.code))) : "\($0)" } ?? "\(error)"
            throw ConfigurationError(key: "dataDirectory", message: "cannot create \(directory.path): \(reason)")
        }
        let path = directory.appendingPathComponent("formhouse.lock").path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw ConfigurationError(key: "dataDirectory", message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let error = errno
            defer { close(fd) }
            guard error == EWOULDBLOCK else {
                throw ConfigurationError(key: "dataDirectory", message: "cannot lock \(path): \(String(cString: strerror(error)))")
            }
            throw ConfigurationError(key: "dataDirectory", message: "\(directory.path) is in use by \(Self.holder(fd)); \(whenHeld)")
        }
        // The holder's pid, for the message another start gets.
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        self.fd = fd
    }

    private static func holder(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        let text = count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
        return Int(text).map { "another formhouse process (pid \($0))" } ?? "another formhouse process"
    }

    deinit {
        close(fd)
    }
}
