import CSQLiteTuning
import Foundation
import GRDB
import Logging

/// The embedded store: one SQLite file in WAL mode, written through GRDB, with group commit.
///
/// ```swift
/// let store = try SQLiteFormStore(directory: URL(fileURLWithPath: "/data"))
/// defer { store.close() }
/// let saved = try await store.saveFormVersion(formID: "signup", definition: json, title: "Sign up", contentHash: hash)
/// ```
///
/// Reads run concurrently on a pool of connections; writes go through the single writer connection.
/// Submissions are committed in groups (see ``insertSubmission(_:)``). Bootstrap the metrics system
/// before creating a store, so its timers and recorders report to it.
public final class SQLiteFormStore: FormStore {
    let pool: DatabasePool
    let configuration: SQLiteStoreConfiguration
    let logger = Logger(label: "formhouse.store")
    let submissionCommitter: GroupCommitter<NewSubmission, InsertOutcome>
    let attemptCommitter: GroupCommitter<RecordedAttempt, Void>
    let rejectionCommitter: GroupCommitter<Rejection, Void>
    let draftCommitter: GroupCommitter<DraftChange, DraftUpdateOutcome>
    private let deliveryObserver = DeliveryObserver()
    let files: DatabaseFiles
    let damage: DamageLatch

    /// Opens (creating if needed) `formhouse.sqlite` in `directory`, which is created with mode 0700
    /// when missing, and brings its schema up to date. A new database file is made with mode 0600,
    /// which SQLite gives its WAL and shared-memory files too. The first store opened in a process also turns
    /// off SQLite's memory statistics for the whole process (see ``processSettings``).
    public init(directory: URL, configuration: SQLiteStoreConfiguration = .init()) throws {
        self.configuration = configuration
        damage = DamageLatch(logger: logger)
        if Self.processSettings != 0 {
            logger.debug("SQLite was opened before the first store; its memory statistics stay on",
                         metadata: ["result": "\(Self.processSettings)"])
        }
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            var grdb = Configuration()
            grdb.label = "formhouse.store"
            grdb.busyMode = .timeout(configuration.busyTimeout)
            grdb.maximumReaderCount = configuration.maximumReaderCount
            let path = directory.appendingPathComponent(configuration.fileName).path
            try DatabaseFiles.createPrivately(path)
            pool = try DatabasePool(path: path, configuration: grdb)
            try Schema.migrator.migrate(pool)
            // GRDB sets synchronous=NORMAL on the writer when it enables WAL, after any
            // prepareDatabase hook, so the durability setting is applied here, once opened. Only the
            // writer deletes, so only it needs `secure_delete`: deleted rows (erased submissions,
            // expired drafts) are overwritten with zeros rather than left in free pages.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = \(configuration.synchronous.rawValue)")
                try db.execute(sql: "PRAGMA secure_delete = ON")
            }
            files = DatabaseFiles(databasePath: path)
        } catch {
            // Which file, for the operator: SQLite's own "unable to open database file" names none.
            let path = directory.appendingPathComponent(configuration.fileName).path
            switch Self.storeError(error) {
            case StoreError.unavailable(let detail): throw StoreError.unavailable("\(path): \(detail)")
            case let other: throw other
            }
        }
        let pool = self.pool
        let files = self.files
        let damage = self.damage
        let beforeCommit = configuration.beforeGroupCommit
        let idempotencyWindow = configuration.idempotencyWindow
        let observer = deliveryObserver
        submissionCommitter = GroupCommitter(
            maxGroupSize: configuration.maxGroupSize, maxGroupBytes: configuration.maxGroupBytes,
            // The webhook payload is built only if needed; it wraps the values, so count them twice.
            weight: { $0.record.rawBody.count + 2 * $0.record.values.utf8.count },
            logger: logger
        ) { group in
            try damage.checkWritable()
            try files.check()
            let (results, deliveriesCreated) = try pool.writeWithoutTransaction { db in
                do {
                    return try SubmissionWriter.write(
                        group, in: db, idempotencyWindow: idempotencyWindow, beforeCommit: beforeCommit)
                } catch {
                    throw damage.note(error, writing: true)
                }
            }
            if deliveriesCreated > 0 { observer.notify() }
            return results
        }
        attemptCommitter = Self.committer(
            metricPrefix: "attempt_", maxGroupSize: configuration.maxGroupSize, logger: logger, pool: pool, files: files,
            damage: damage) { try AttemptWriter.write($0, in: $1) }
        rejectionCommitter = Self.committer(
            metricPrefix: "rejection_", maxGroupSize: configuration.maxGroupSize, logger: logger, pool: pool, files: files,
            damage: damage) { try RejectionWriter.write($0, in: $1) }
        draftCommitter = Self.committer(
            metricPrefix: "draft_", maxGroupSize: configuration.maxGroupSize, logger: logger, pool: pool, files: files,
            damage: damage) { try DraftChangeWriter.write($0, in: $1) }
    }

    /// A committer whose groups `write` writes on the writer connection after the checks every write makes.
    private static func committer<Item: Sendable, Outcome: Sendable>(
        metricPrefix: String, maxGroupSize: Int, logger: Logger, pool: DatabasePool, files: DatabaseFiles,
        damage: DamageLatch, write: @escaping @Sendable ([Item], Database) throws -> [Result<Outcome, StoreError>]
    ) -> GroupCommitter<Item, Outcome> {
        GroupCommitter(maxGroupSize: maxGroupSize, metricPrefix: metricPrefix, logger: logger) { group in
            try damage.checkWritable()
            try files.check()
            return try pool.writeWithoutTransaction { db in
                do { return try write(group, db) } catch { throw damage.note(error, writing: true) }
            }
        }
    }

    /// Fails queued submissions, rejections and draft changes, lets a group being written finish, moves the WAL into
    /// the database file, and closes every connection.
    public func close() {
        submissionCommitter.close()
        attemptCommitter.close()
        rejectionCommitter.close()
        draftCommitter.close()
        if let finding = damage.finding {
            // Checkpointing would copy the log into a damaged file, or write on after a failed fsync;
            // the WAL stays as it is, for recovery or inspection. Not checkpointing here is not enough:
            // SQLite checkpoints when the last connection closes, which is the writer when no reader
            // was ever opened (readers are read-only and cannot).
            do {
                try pool.writeWithoutTransaction { db in
                    let result = csqlite_no_checkpoint_on_close(UnsafeMutableRawPointer(db.sqliteConnection))
                    if result != ResultCode.SQLITE_OK.rawValue { throw DatabaseError(resultCode: ResultCode(rawValue: result)) }
                }
            } catch {
                logger.error("the writer may checkpoint at close", metadata: ["error": "\(error)"])
            }
            logger.error("the WAL is left as it is at close", metadata: ["reason": "\(finding)"])
        } else {
            do {
                // The pool closes its writer before its readers, and a reader closing last cannot
                // checkpoint: without this the WAL would keep recent rows and `formhouse.sqlite` alone
                // would miss them (SQLite recovers them at the next open, but a copied file would not).
                try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            } catch {
                logger.warning("the WAL could not be checkpointed at close; the next open recovers it", metadata: ["error": "\(error)"])
            }
        }
        do {
            try pool.close()
        } catch {
            logger.error("closing the database failed", metadata: ["error": "\(error)"])
        }
    }

    /// Group commit counters since the store was opened.
    public var commitStatistics: CommitStatistics {
        submissionCommitter.statistics
    }

    /// Calls `handler` after each commit that queued new deliveries, so a worker need not poll
    /// eagerly. Replaces any earlier handler.
    public func onDeliveriesCreated(_ handler: @escaping @Sendable () -> Void) {
        deliveryObserver.set(handler)
    }

    /// Never called: the database file is held by this process alone (the data directory is locked).
    public func onFormChanged(_ handler: @escaping @Sendable (String) -> Void) {}

    /// Ready when the files are the ones opened, nothing has found the file corrupt nor a write's I/O
    /// failing, and the schema and the first page of each table read back.
    public func ping() async throws {
        if let finding = damage.finding { throw StoreError.unavailable(finding) }
        try await read { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            for table in tables {
                // The table's own b-tree, not a smaller covering index; no column, so a large value's
                // overflow pages are not read (readiness checks may come often, from anyone).
                _ = try Int.fetchOne(db, sql: "SELECT 1 FROM \(table.quotedDatabaseIdentifier) NOT INDEXED LIMIT 1")
            }
        }
    }

    // MARK: Access helpers

    /// Reads check the files too: after a restore replaced the database, reading the unlinked old
    /// file would answer with contents a restart no longer has. The check runs on the database's
    /// own thread, not the caller's (an event loop).
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let files = self.files
        do {
            return try await pool.read { db in
                try files.check()
                return try body(db)
            }
        } catch {
            throw Self.storeError(damage.note(error))
        }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let files = self.files
        let damage = self.damage
        do {
            // Checked before taking the writer too: a refused write need not BEGIN on a failing disk.
            try damage.checkWritable()
            return try await pool.write { db in
                try damage.checkWritable()
                try files.check()
                return try body(db)
            }
        } catch {
            throw Self.storeError(damage.note(error, writing: true))
        }
    }

    /// Process-wide SQLite settings, applied before the first store opens: memory statistics off
    /// (their global mutex on every SQLite allocation costs about 8 % of the group-commit writer's CPU). Other
    /// SQLite users in the same process then read 0 from `sqlite3_memory_used` and cannot use heap
    /// limits. `SQLITE_MISUSE` means other code in the process opened SQLite first; it then keeps them.
    public static let processSettings: Int32 = csqlite_disable_memory_statistics()

    /// The `synchronous` setting of the writing connection (2 is FULL, 1 is NORMAL).
    func writerSynchronousSetting() async throws -> Int {
        try await pool.writeWithoutTransaction { db in
            try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
        }
    }

    /// Store errors and cancellation pass through; anything from the database means it cannot be
    /// used right now.
    static func storeError(_ error: any Error) -> any Error {
        switch error {
        case is StoreError, is CancellationError:
            error
        case let error as DatabaseError:
            StoreError.unavailable("\(error.resultCode): \(error.message ?? "database error")")
        default:
            StoreError.unavailable(String(describing: error))
        }
    }
}
