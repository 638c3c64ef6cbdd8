import Foundation

/// The device and inode of the database file and its WAL, taken when the store opened. SQLite keeps
/// writing to a file that was deleted or replaced under it, so commits would be acknowledged into a
/// file no restart will find; writes and readiness checks compare these first (one `stat` each).
struct DatabaseFiles: Sendable {
    private struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    private let files: [(path: String, identity: Identity)]

    init(databasePath: String) {
        files = [databasePath, databasePath + "-wal"].compactMap { path in Self.identity(of: path).map { (path, $0) } }
    }

    /// Throws ``StoreError/unavailable(_:)`` when a file is gone or is no longer the one opened.
    func check() throws(StoreError) {
        for (path, identity) in files where Self.identity(of: path) != identity {
            throw StoreError.unavailable(
                "\(path) was removed or replaced while the store had it open; restart the server")
        }
    }

    /// Creates `path` empty with mode 0600 unless it exists. SQLite takes an empty file as a new
    /// database and makes its `-wal` and `-shm` with the database file's mode, so all three stay
    /// private to the server's user whatever its umask or the directory's mode (submissions are
    /// personal data). An existing file keeps the mode its operator gave it.
    static func createPrivately(_ path: String) throws(StoreError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
        } else if errno != EEXIST {
            throw StoreError.unavailable("cannot create the database file: \(String(cString: strerror(errno)))")
        }
    }

    private static func identity(of path: String) -> Identity? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }
}
