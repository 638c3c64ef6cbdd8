/// Why ``SQLiteToPostgresCopy`` refused or stopped; each message names the file or table at fault.
public enum StoreCopyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// There is no database file to copy.
    case noDatabase(path: String)
    /// The file cannot be opened or read as a SQLite database.
    case unreadable(path: String, reason: String)
    /// The file is a SQLite database that formhouse did not make (it has no migration record).
    case notAFormhouseDatabase(path: String)
    /// The database has migrations this copy does not know: a newer formhouse made it.
    case unknownMigrations([String])
    /// The database lacks migrations this copy expects: an older formhouse made it.
    case missingMigrations([String])
    /// The target holds rows in these tables; the copy only fills an empty database.
    case targetNotEmpty(tables: [String])
    /// A value of a type its column does not have (never in a database formhouse wrote).
    case unexpectedValue(table: String, column: String, value: String)
    /// Writing a table's rows failed; the target holds the rows copied before.
    case writeFailed(table: String, reason: String)
    /// After the copy, a table does not hold as many rows on both sides.
    case countMismatch(table: String, sqlite: Int, postgres: Int)

    public var description: String {
        switch self {
        case .noDatabase(let path):
            "there is no database at \(path): check --data-dir"
        case .unreadable(let path, let reason):
            "\(path) cannot be read: \(reason)"
        case .notAFormhouseDatabase(let path):
            "\(path) is not a formhouse database (it has no grdb_migrations table)"
        case .unknownMigrations(let names):
            "the SQLite database has migrations this formhouse cannot copy (\(names.joined(separator: ", "))): "
                + "use the formhouse version that made it"
        case .missingMigrations(let names):
            "the SQLite database lacks migrations (\(names.joined(separator: ", "))): "
                + "start this formhouse version's server on it once to bring it up to date, then copy it"
        case .targetNotEmpty(let tables):
            "the PostgreSQL database already holds data (in \(tables.joined(separator: ", "))); "
                + "the copy only fills an empty database, and nothing was written"
        case .unexpectedValue(let table, let column, let value):
            "\(table).\(column) holds \(value), which its PostgreSQL column cannot take"
        case .writeFailed(let table, let reason):
            "copying \(table) failed: \(reason); the PostgreSQL database holds part of the data: "
                + "drop and create it again before the next try"
        case .countMismatch(let table, let sqlite, let postgres):
            "\(table) holds \(sqlite) rows in SQLite but \(postgres) in PostgreSQL after the copy"
        }
    }
}
