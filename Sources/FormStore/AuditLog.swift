import Foundation
import GRDB

/// The audit log's rows in SQLite: appended in the transaction of the write they record.
enum AuditLog {
    /// Appends the entry `note` describes after the newest one; nothing when `note` is nil. SQLite
    /// has one writer at a time, so the newest entry cannot change before this transaction commits.
    static func append(_ note: AuditNote?, versionBefore: Int? = nil, versionAfter: Int? = nil, in db: Database) throws {
        guard let note else { return }
        let head = try Row.fetchOne(db.cachedStatement(sql: "SELECT sequence, hash FROM audit_log ORDER BY sequence DESC LIMIT 1"))
        let entry = AuditEntry(
            after: head?["sequence"] ?? 0, previousHash: head?["hash"] ?? AuditChain.genesisHash, note: note, at: Date(),
            versionBefore: versionBefore, versionAfter: versionAfter)
        try db.execute(sql: """
            INSERT INTO audit_log (sequence, at, actor, action, route, target, version_before, version_after, detail, previous_hash, hash)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [
                entry.sequence, entry.at.storedMilliseconds, entry.actor, entry.action, entry.route, entry.target,
                entry.versionBefore, entry.versionAfter, entry.detail, entry.previousHash, entry.hash,
            ])
    }

    static func entries(_ query: AuditQuery, in db: Database) throws -> [AuditEntry] {
        var conditions: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        func add(_ condition: String, _ value: (any DatabaseValueConvertible)?) {
            guard let value else { return }
            conditions.append(condition)
            arguments.append(value)
        }
        add("sequence > ?", query.after)
        add("sequence < ?", query.before)
        add("actor = ?", query.actor)
        add("action = ?", query.action)
        add("target = ?", query.target)
        add("at >= ?", query.from?.storedMilliseconds)
        add("at < ?", query.until?.storedMilliseconds)
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        arguments.append(Int64(clamping: max(query.limit, 0)))
        return try Row.fetchAll(db, sql: """
            SELECT * FROM audit_log \(filter) ORDER BY sequence \(query.newestFirst ? "DESC" : "ASC") LIMIT ?
            """, arguments: StatementArguments(arguments)).map { row in
            AuditEntry(
                sequence: row["sequence"], at: Date(storedMilliseconds: row["at"]), actor: row["actor"], action: row["action"],
                route: row["route"], target: row["target"], versionBefore: row["version_before"],
                versionAfter: row["version_after"], detail: row["detail"], previousHash: row["previous_hash"], hash: row["hash"])
        }
    }
}

extension SQLiteFormStore {
    public func auditEntries(_ query: AuditQuery) async throws -> [AuditEntry] {
        try await read { db in try AuditLog.entries(query, in: db) }
    }
}
