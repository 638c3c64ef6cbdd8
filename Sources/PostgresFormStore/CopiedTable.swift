import GRDB
import Logging
import PostgresNIO

/// One table that ``SQLiteToPostgresCopy`` moves: its rows are read from SQLite in primary-key
/// order, a batch at a time, and inserted into the PostgreSQL table of the same name, one statement
/// per batch that binds an array per column and inserts their `unnest`.
struct CopiedTable: Sendable {
    var name: String
    var columns: [CopiedColumn]
    /// The primary key's columns, which the batches page by.
    var key: [String]
    /// A column the database numbers (an identity): its sequence is moved past the largest copied value.
    var identity: String?
    /// Where the key's columns are among ``columns``.
    private let keyIndexes: [Int]

    init(_ name: String, key: [String], identity: String? = nil, columns: [CopiedColumn]) {
        self.name = name
        self.key = key
        self.identity = identity
        self.columns = columns
        keyIndexes = key.map { keyColumn in
            guard let index = columns.firstIndex(where: { $0.name == keyColumn }) else {
                preconditionFailure("the key column \(keyColumn) of \(name) is not copied")
            }
            return index
        }
    }

    /// The next batch after `after` (the previous batch's last key; nil for the first): at most
    /// `maxRows` rows, and no more once `maxBytes` of values are read (one larger row is a batch alone).
    func readBatch(after: [DatabaseValue]?, maxRows: Int, maxBytes: Int, in db: Database) throws -> CopiedBatch? {
        var batch = CopiedBatch(columns: columns.map { ColumnValues(kind: $0.kind) })
        let keyList = key.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        let selected = columns.map { $0.source ?? $0.name.quotedDatabaseIdentifier }.joined(separator: ", ")
        let position = after.map { "WHERE (\(keyList)) > (\($0.map { _ in "?" }.joined(separator: ", ")))" } ?? ""
        let rows = try Row.fetchCursor(
            db, sql: "SELECT \(selected) FROM \(name.quotedDatabaseIdentifier) \(position) ORDER BY \(keyList) LIMIT ?",
            arguments: StatementArguments(after ?? []) + [maxRows])
        while let row = try rows.next() {
            for index in columns.indices {
                let value: DatabaseValue = row[index]
                guard let size = batch.columns[index].append(value) else {
                    throw StoreCopyError.unexpectedValue(table: name, column: columns[index].name, value: "\(value)")
                }
                batch.bytes += size
            }
            batch.count += 1
            batch.lastKey = keyIndexes.map { row[$0] }
            if batch.bytes >= maxBytes { break }
        }
        return batch.count == 0 ? nil : batch
    }

    /// Inserts a batch in one statement; the SQL names only this table's constant columns, the values are bound.
    func insert(_ batch: CopiedBatch, on connection: PostgresConnection, logger: Logger) async throws {
        var bindings = PostgresBindings(capacity: columns.count)
        var arrays: [String] = []
        for (index, column) in columns.enumerated() {
            batch.columns[index].bind(into: &bindings)
            arrays.append("$\(index + 1)::\(column.kind.postgresType)[]")
        }
        let names = columns.map { "\"\($0.name)\"" }.joined(separator: ", ")
        let sql = "INSERT INTO \(name) (\(names)) SELECT * FROM unnest(\(arrays.joined(separator: ", ")))"
        try await connection.execute(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
    }

    /// Moves the identity column's sequence past the largest value copied, so the next row the
    /// database numbers does not collide with a copied one.
    func moveIdentitySequence(on connection: PostgresConnection, logger: Logger) async throws {
        guard let identity else { return }
        let sql = """
            SELECT setval(pg_get_serial_sequence('\(name)', '\(identity)'), COALESCE(MAX("\(identity)"), 0) + 1, false)
            FROM \(name)
            """
        try await connection.execute(PostgresQuery(unsafeSQL: sql), logger: logger)
    }
}

/// A column of a ``CopiedTable``, by its PostgreSQL type.
struct CopiedColumn: Sendable {
    enum Kind: Sendable {
        /// `boolean` is read from SQLite's 0 and 1.
        case text, bigint, integer, bytea, boolean

        var postgresType: String {
            switch self {
            case .text: "text"
            case .bigint: "bigint"
            case .integer: "integer"
            case .bytea: "bytea"
            case .boolean: "boolean"
            }
        }
    }

    var name: String
    var kind: Kind
    /// What SQLite reads for the column when it is not the column itself (`NULL` for a value not copied).
    var source: String?

    static func text(_ name: String) -> CopiedColumn { CopiedColumn(name: name, kind: .text) }
    static func bigint(_ name: String) -> CopiedColumn { CopiedColumn(name: name, kind: .bigint) }
    static func integer(_ name: String) -> CopiedColumn { CopiedColumn(name: name, kind: .integer) }
    static func bytea(_ name: String) -> CopiedColumn { CopiedColumn(name: name, kind: .bytea) }
    static func boolean(_ name: String) -> CopiedColumn { CopiedColumn(name: name, kind: .boolean) }

    /// A column written NULL whatever SQLite holds.
    static func cleared(_ column: CopiedColumn) -> CopiedColumn {
        CopiedColumn(name: column.name, kind: column.kind, source: "NULL")
    }
}
