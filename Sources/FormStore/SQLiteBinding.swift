import GRDB
import GRDBSQLite

/// Runs a prepared statement through SQLite's C API, for the one statement executed once per accepted
/// submission. GRDB's `execute(arguments:)` boxes every argument and copies every string into a C
/// string; profiled under load, that cost as much CPU on the writer thread as SQLite's own insert.
/// The statement is still prepared and cached by GRDB, inside a GRDB transaction.
struct SQLiteBinding {
    private let prepared: Statement
    private let connection: SQLiteConnection?
    private var index: Int32 = 0
    private var statement: SQLiteStatement { prepared.sqliteStatement }

    /// Starts binding `statement` afresh (a stale error from an earlier failed run is dropped).
    init(_ statement: Statement, in db: Database) {
        prepared = statement
        connection = db.sqliteConnection
        sqlite3_reset(statement.sqliteStatement)
        sqlite3_clear_bindings(statement.sqliteStatement)
    }

    mutating func bind(_ value: String?) {
        index += 1
        guard var value else {
            sqlite3_bind_null(statement, index)
            return
        }
        value.withUTF8 { text in
            _ = sqlite3_bind_text(statement, index, text.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                                  Int32(text.count), Self.transient)
        }
    }

    mutating func bind(_ value: Int64) {
        index += 1
        sqlite3_bind_int64(statement, index, value)
    }

    mutating func bind(blob: [UInt8]) {
        index += 1
        blob.withUnsafeBytes { bytes in
            // A non-null pointer even for an empty body: a NULL pointer would bind SQL NULL.
            _ = sqlite3_bind_blob(statement, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), Self.transient)
        }
    }

    /// Steps the statement to its end; a failure throws the `DatabaseError` GRDB would have thrown.
    func run() throws {
        // After the error is read: resetting is what releases the bound copies either way.
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        let code = sqlite3_step(statement)
        guard code == SQLITE_DONE else {
            let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
            let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            // `sql` is read only here: GRDB rebuilds the text on every read.
            throw DatabaseError(resultCode: ResultCode(rawValue: extended), message: message, sql: prepared.sql)
        }
    }

    /// SQLite copies the bytes before the bind call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
