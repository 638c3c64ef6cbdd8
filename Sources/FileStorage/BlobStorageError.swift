#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a storage operation failed. Descriptions never contain credentials.
public enum BlobStorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key is not one a storage accepts (empty, absolute, `..`, a NUL or control character...).
    case badKey(key: String, reason: String)
    /// There is no object under the key.
    case notFound(key: String)
    /// The storage could not be reached or the transfer broke off (resolve, connect, timeout, reset).
    case unreachable(String)
    /// The storage answered with an error: its HTTP status and, when it sent one, its S3 error code.
    case refused(status: Int, code: String?, message: String?)
    /// The storage answered something that is not what S3 sends.
    case malformedResponse(String)
    /// The configured location is not usable (bad `s3://` URL, bucket name or endpoint).
    case invalidLocation(String)
    /// A local file operation failed.
    case fileSystem(path: String, operation: String, errno: Int32)
    /// The writer was already finished or aborted.
    case writerClosed

    public var description: String {
        switch self {
        case .badKey(let key, let reason):
            return "The storage key \(String(reflecting: key)) is refused: \(reason)."
        case .notFound(let key):
            return "No stored object has the key \(String(reflecting: key))."
        case .unreachable(let detail):
            return "The storage is unreachable: \(detail)"
        case .refused(let status, let code, let message):
            let what = [code, message].compactMap { $0 }.joined(separator: ": ")
            return "The storage refused the request with HTTP \(status)\(what.isEmpty ? "" : " (\(what))")."
        case .malformedResponse(let detail):
            return "The storage sent an unexpected response: \(detail)"
        case .invalidLocation(let detail):
            return "The storage location is not usable: \(detail)"
        case .fileSystem(let path, let operation, let code):
            return "\(operation) \(path) failed: \(String(cString: strerror(code)))."
        case .writerClosed:
            return "The object's writer is already finished or aborted."
        }
    }
}
