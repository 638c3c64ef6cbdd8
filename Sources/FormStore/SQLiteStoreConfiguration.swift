import Foundation

/// Settings of ``SQLiteFormStore``; the defaults are the production ones.
public struct SQLiteStoreConfiguration: Sendable {
    /// SQLite's `synchronous` setting for the writing connection.
    public enum Synchronous: String, Sendable, CaseIterable {
        /// Every commit is fsync'd before it returns: an acknowledged write survives power loss. The default.
        case full = "FULL"
        /// Commits may be lost on power loss (not on a process crash). For benchmarks only.
        case normal = "NORMAL"
    }

    public var synchronous: Synchronous = .full
    /// The most submissions written in one group transaction.
    public var maxGroupSize: Int = 256
    /// The most bytes of raw bodies and values (counted twice, for the webhook payloads that wrap them)
    /// in one group, so a burst of big bodies does not make one huge transaction; a larger single
    /// submission still forms a group of its own.
    public var maxGroupBytes: Int = 32 << 20
    /// How long a write waits for a lock held by another connection before failing as unavailable.
    public var busyTimeout: TimeInterval = 5
    /// Concurrent read connections.
    public var maximumReaderCount: Int = 4
    /// How long an idempotency key answers with its first submission. A key repeated later stores a
    /// new submission, and the old one no longer answers to the key.
    public var idempotencyWindow: TimeInterval = 24 * 60 * 60
    /// The database file's name inside the data directory.
    public var fileName: String = "formhouse.sqlite"

    /// Runs inside each group transaction just before COMMIT; a throw fails the group (tests only).
    var beforeGroupCommit: (@Sendable () throws -> Void)?

    public init(
        synchronous: Synchronous = .full, maxGroupSize: Int = 256, busyTimeout: TimeInterval = 5,
        maximumReaderCount: Int = 4, idempotencyWindow: TimeInterval = 24 * 60 * 60
    ) {
        self.idempotencyWindow = idempotencyWindow
        self.synchronous = synchronous
        self.maxGroupSize = max(1, maxGroupSize)
        self.busyTimeout = busyTimeout
        self.maximumReaderCount = max(1, maximumReaderCount)
    }
}
