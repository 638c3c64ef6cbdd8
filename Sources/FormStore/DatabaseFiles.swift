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

    private static func identity(of path: String) -> Identity? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }
}
