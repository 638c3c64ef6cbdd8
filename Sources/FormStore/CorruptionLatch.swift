import GRDB
import Synchronization

/// Remembers that SQLite found the database file corrupt (or not a database at all). Readiness
/// reads only a little of the file, so damage elsewhere showed only as 503s on the routes that met
/// it while `/readyz` said ready; once any statement meets it, readiness fails until a restart
/// (after a restore from backup).
final class CorruptionLatch: Sendable {
    private let found = Mutex<String?>(nil)

    /// Passes `error` through, noting it when it says the file is damaged.
    func note(_ error: any Error) -> any Error {
        if let error = error as? DatabaseError,
           [ResultCode.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode.primaryResultCode) {
            let message = "\(error.resultCode): \(error.message ?? "database error")"
            found.withLock { $0 = $0 ?? message }
        }
        return error
    }

    /// What was found, if anything.
    var finding: String? { found.withLock { $0 } }
}
