import GRDB
import GRDBSQLite

/// Runs a prepared statement through SQLite's C API, for the one statement executed once per accepted
/// submission. GRDB's `execute(arguments:)` boxes every argument and copies every string into a C
/// string; under load that costs as much CPU on the writer thread as SQLite's own insert.
/// The statement is still prepared and cached by GRDB, inside a GRDB transaction.
///
/// Made once per group and reused for each row: texts and blobs are gathered in one buffer that keeps
/// its capacity, and bound in place (`SQLITE_STATIC`) only for the duration of ``run()``: a transient
/// binding would cost SQLite a malloc and a free per value and row.
struct SQLiteBinding {
    /// A text or blob parameter: where its bytes are in `bytes`.
    private struct Slot {
        var index: Int32
        var offset: Int
        var count: Int
        var isBlob: Bool
    }

    private let prepared: Statement
    private let connection: SQLiteConnection?
    private var index: Int32 = 0
    private var bytes: [UInt8] = []
    private var slots: [Slot] = []
    private var statement: SQLiteStatement { prepared.sqliteStatement }

    init(_ statement: Statement, in db: Database) {
        prepared = statement
        connection = db.sqliteConnection
        bytes.reserveCapacity(4096)
        slots.reserveCapacity(16)
    }

    /// Starts binding the next row afresh (a stale error from an earlier failed run is dropped).
    mutating func begin() {
        index = 0
        bytes.removeAll(keepingCapacity: true)
        slots.removeAll(keepingCapacity: true)
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    mutating func bind(_ value: String?) {
        index += 1
        guard let value else {
            sqlite3_bind_null(statement, index)
            return
        }
        slots.append(Slot(index: index, offset: bytes.count, count: value.utf8.count, isBlob: false))
        bytes.append(contentsOf: value.utf8)
    }

    mutating func bind(_ value: Int64) {
        index += 1
        sqlite3_bind_int64(statement, index, value)
    }

    mutating func bind(blob: [UInt8]) {
        index += 1
        slots.append(Slot(index: index, offset: bytes.count, count: blob.count, isBlob: true))
        bytes.append(contentsOf: blob)
    }

    /// Binds the gathered texts and blobs, steps the statement to its end, and unbinds them before
    /// their buffer can move; a failure throws the `DatabaseError` GRDB would have thrown.
    func run() throws {
        try bytes.withUnsafeBytes { buffer in
            // Resetting and clearing is what lets go of the buffer, on every path out.
            defer {
                sqlite3_reset(statement)
                sqlite3_clear_bindings(statement)
            }
            // A non-null pointer even for an empty value: a NULL pointer would bind SQL NULL.
            let base = buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
            for slot in slots {
                let start = base + slot.offset
                if slot.isBlob {
                    sqlite3_bind_blob(statement, slot.index, start, Int32(slot.count), nil)
                } else {
                    sqlite3_bind_text(statement, slot.index, start.assumingMemoryBound(to: CChar.self), Int32(slot.count), nil)
                }
            }
            let code = sqlite3_step(statement)
            guard code == SQLITE_DONE else {
                let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
                let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
                // `sql` is read only here: GRDB rebuilds the text on every read.
                throw DatabaseError(resultCode: ResultCode(rawValue: extended), message: message, sql: prepared.sql)
            }
        }
    }
}
