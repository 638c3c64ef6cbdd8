import Foundation
import GRDB
import PostgresNIO

/// Copies the embedded store's database (a data directory's `formhouse.sqlite`) into an empty
/// PostgreSQL database, row for row, keeping ids, timestamps and bytes as they are.
///
/// ```swift
/// let target = try await PostgresFormStore(settings: settings)  // brings the schema up to date
/// defer { target.close() }
/// let copy = SQLiteToPostgresCopy(databaseFile: dataDirectory.appendingPathComponent("formhouse.sqlite"))
/// let counts = try await copy.run(into: target) { progress in print(progress.table, progress.copied) }
/// ```
///
/// The SQLite file is opened read-only, and nothing may write it meanwhile: the caller holds the data
/// directory's lock. Before writing anything the copy refuses a database whose schema it does not
/// know and a target that holds any row. Each batch is one PostgreSQL transaction; at the end each
/// table's rows are counted on both sides.
public struct SQLiteToPostgresCopy: Sendable {
    public let databaseFile: URL
    /// The most rows in one batch.
    public var batchRows = 500
    /// A batch ends once it holds this many bytes of values, so large raw bodies bound its memory.
    public var batchBytes = 4 << 20

    public init(databaseFile: URL) {
        self.databaseFile = databaseFile
    }

    /// Copies every table into `target`, whose schema is up to date (opening it migrated it), and
    /// returns each table's row count, the same on both sides. `progress` is called as each table
    /// starts, after each of its batches, and once it is done.
    public func run(
        into target: PostgresFormStore, progress: @Sendable (StoreCopyProgress) -> Void = { _ in }
    ) async throws -> [CopiedTableCount] {
        let source = try openSource()
        defer { try? source.close() }
        try await checkSchema(of: source)
        let totals = try await sqliteCounts(in: source)
        try await checkEmpty(target)
        for table in Self.tables {
            let total = totals[table.name] ?? 0
            progress(StoreCopyProgress(table: table.name, copied: 0, total: total, finished: false))
            let copied = try await copy(table, from: source, into: target) { copied in
                progress(StoreCopyProgress(table: table.name, copied: copied, total: total, finished: false))
            }
            progress(StoreCopyProgress(table: table.name, copied: copied, total: total, finished: true))
        }
        return try await verifyCounts(source: source, target: target)
    }

    /// The SQLite file, read-only.
    func openSource() throws(StoreCopyError) -> DatabaseQueue {
        let path = databaseFile.path
        guard FileManager.default.fileExists(atPath: path) else { throw .noDatabase(path: path) }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "formhouse.copy"
        do {
            return try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }

    /// The copy knows the tables of exactly ``knownSQLiteMigrations``.
    private func checkSchema(of source: DatabaseQueue) async throws {
        let path = databaseFile.path
        let applied: [String]? = try await sqlite(source) { db in
            guard try db.tableExists("grdb_migrations") else { return nil }
            return try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
        }
        guard let applied else { throw StoreCopyError.notAFormhouseDatabase(path: path) }
        let unknown = applied.filter { !Self.knownSQLiteMigrations.contains($0) }
        guard unknown.isEmpty else { throw StoreCopyError.unknownMigrations(unknown) }
        let missing = Self.knownSQLiteMigrations.filter { !applied.contains($0) }
        guard missing.isEmpty else { throw StoreCopyError.missingMigrations(missing) }
    }

    private func sqliteCounts(in source: DatabaseQueue) async throws -> [String: Int] {
        try await sqlite(source) { db in
            var counts: [String: Int] = [:]
            for table in Self.tables {
                counts[table.name] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table.name.quotedDatabaseIdentifier)") ?? 0
            }
            return counts
        }
    }

    /// Refuses a target with a row in any copied table (the forms, submissions, endpoints or
    /// deliveries of a store in use, or the remains of an earlier copy).
    private func checkEmpty(_ target: PostgresFormStore) async throws {
        let filled = try await target.read { connection in
            var filled: [String] = []
            for table in Self.tables {
                let query = PostgresQuery(unsafeSQL: "SELECT EXISTS (SELECT 1 FROM \(table.name))")
                for try await exists in try await connection.query(query, logger: target.logger).decode(Bool.self) where exists {
                    filled.append(table.name)
                }
            }
            return filled
        }
        guard filled.isEmpty else { throw StoreCopyError.targetNotEmpty(tables: filled) }
    }

    /// Copies one table a batch at a time, each in its own transaction, and returns the rows copied.
    private func copy(
        _ table: CopiedTable, from source: DatabaseQueue, into target: PostgresFormStore, progress: (Int) -> Void
    ) async throws -> Int {
        let (batchRows, batchBytes) = (batchRows, batchBytes)
        var after: [DatabaseValue]?
        var copied = 0
        while true {
            let position = after
            let batch = try await sqlite(source) { db in
                try table.readBatch(after: position, maxRows: batchRows, maxBytes: batchBytes, in: db)
            }
            guard let batch else { break }
            try await write(table, into: target) { connection in
                try await table.insert(batch, on: connection, logger: target.logger)
            }
            after = batch.lastKey
            copied += batch.count
            progress(copied)
        }
        if table.identity != nil {
            try await write(table, into: target) { connection in
                try await table.moveIdentitySequence(on: connection, logger: target.logger)
            }
        }
        return copied
    }

    /// One transaction on the target, its failure as ``StoreCopyError/writeFailed(table:reason:)``.
    private func write(
        _ table: CopiedTable, into target: PostgresFormStore, _ body: @escaping @Sendable (PostgresConnection) async throws -> Void
    ) async throws {
        do {
            try await target.transaction(body)
        } catch {
            throw StoreCopyError.writeFailed(table: table.name, reason: "\(error)")
        }
    }

    /// Counts each table's rows again on both sides; a difference means a row was lost or added.
    func verifyCounts(source: DatabaseQueue, target: PostgresFormStore) async throws -> [CopiedTableCount] {
        let sqliteCounts = try await sqliteCounts(in: source)
        var counts: [CopiedTableCount] = []
        for table in Self.tables {
            let postgres = try await target.read { connection in
                try await connection.query(PostgresQuery(unsafeSQL: "SELECT COUNT(*) FROM \(table.name)"), logger: target.logger)
                    .decode(Int.self).reduce(0) { $0 + $1 }
            }
            let sqlite = sqliteCounts[table.name] ?? 0
            guard sqlite == postgres else {
                throw StoreCopyError.countMismatch(table: table.name, sqlite: sqlite, postgres: postgres)
            }
            counts.append(CopiedTableCount(table: table.name, rows: sqlite))
        }
        return counts
    }

    /// A read of the SQLite file, its failures as ``StoreCopyError/unreadable(path:reason:)``.
    private func sqlite<T: Sendable>(
        _ source: DatabaseQueue, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        do {
            return try await source.read(body)
        } catch let error as StoreCopyError {
            throw error
        } catch {
            throw StoreCopyError.unreadable(path: databaseFile.path, reason: "\(error)")
        }
    }
}
