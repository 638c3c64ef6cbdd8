import Foundation
import GRDB
import PostgresNIO

/// A stored value as both databases give it back, for comparing rows across them.
enum Cell: Equatable, CustomStringConvertible {
    case null
    case integer(Int64)
    case text(String)
    case bytes([UInt8])

    var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): "\(value)"
        case .text(let value): "'\(value.prefix(40))'"
        case .bytes(let value): "<\(value.count) bytes>"
        }
    }
}

/// Every row of a table by SQL on each side, in primary-key order, for the columns SQLite has.
enum TableDump {
    static let keys: [String: String] = [
        "forms": "id", "form_versions": "form_id, version", "submissions": "id", "webhook_endpoints": "id",
        "deliveries": "id", "delivery_attempts": "id", "uploads": "id", "drafts": "id", "draft_starts": "client_address, hour",
        "form_daily_stats": "form_id, day", "form_rejection_stats": "form_id, day, field, code",
        "audit_log": "sequence",
    ]

    static func columns(of table: String, in sqlite: DatabaseQueue) throws -> [String] {
        try sqlite.read { db in try db.columns(in: table).map(\.name) }
    }

    static func sqlite(_ table: String, columns: [String], in sqlite: DatabaseQueue) throws -> [[Cell]] {
        try sqlite.read { db in
            let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
            return try Row.fetchAll(db, sql: "SELECT \(list) FROM \(table) ORDER BY \(keys[table]!)").map { row in
                (0..<row.count).map { index in
                    switch (row[index] as DatabaseValue).storage {
                    case .null: .null
                    case .int64(let value): .integer(value)
                    case .double(let value): .text("double \(value)")
                    case .string(let value): .text(value)
                    case .blob(let data): .bytes([UInt8](data))
                    }
                }
            }
        }
    }

    static func postgres(_ table: String, columns: [String], on client: PostgresClient) async throws -> [[Cell]] {
        let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        let rows = try await client.query(PostgresQuery(unsafeSQL: "SELECT \(list) FROM \(table) ORDER BY \(keys[table]!)"))
        var result: [[Cell]] = []
        for try await row in rows {
            result.append(try row.map { cell in
                guard cell.bytes != nil else { return .null }
                switch cell.dataType {
                case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
                // SQLite holds a boolean as 0 or 1.
                case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
                case .bytea: return .bytes(Array(try cell.decode(ByteBuffer.self).readableBytesView))
                default: return .text(try cell.decode(String.self))
                }
            })
        }
        return result
    }
}
