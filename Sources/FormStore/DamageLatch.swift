import GRDB
import Logging
import Synchronization

/// Remembers that the database can no longer be trusted, until a restart:
/// - SQLite found the file corrupt (or not a database at all). Readiness reads only a little of the
///   file, so without the latch damage elsewhere would fail only the operations that meet it while
///   `ping` passes, and writes would go on into the WAL, acknowledged though a restart cannot read them.
/// - A write failed with an I/O error. A failed fsync may have dropped pages the kernel had accepted,
///   and a retried fsync can succeed without them; the COMMIT may also have reached the log before the
///   error, so its rows may be there after a restart. Nothing written after that can be promised.
/// Once latched, readiness fails and writes are refused; the WAL is not checkpointed into the file.
final class DamageLatch: Sendable {
    private let found = Mutex<String?>(nil)
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// Passes `error` through, noting it when it says the file is damaged, or, for a write, that its
    /// I/O failed. A full disk is not latched: SQLite backs the transaction out and later writes work.
    func note(_ error: any Error, writing: Bool = false) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        let primary = error.resultCode.primaryResultCode
        let text = "\(error.resultCode): \(error.message ?? "database error")"
        if [ResultCode.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(primary) {
            latch("the database file is damaged (\(text)); restore it from a backup and restart")
        } else if writing && primary == .SQLITE_IOERR {
            latch("a write failed with an I/O error (\(text)); check the disk and restart")
            return StoreError.outcomeUnknown(text)
        }
        return error
    }

    /// Said once, when it is found: the requests refused afterwards are not logged one by one.
    private func latch(_ finding: String) {
        let first = found.withLock { found in
            defer { found = found ?? finding }
            return found == nil
        }
        if first { logger.critical("writes are stopped until a restart", metadata: ["reason": "\(finding)"]) }
    }

    /// What was found, if anything.
    var finding: String? { found.withLock { $0 } }

    /// Refuses a write once something was found.
    func checkWritable() throws(StoreError) {
        if let finding { throw StoreError.unavailable("writes are stopped: \(finding)") }
    }
}
