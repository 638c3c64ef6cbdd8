import FormStore
import Foundation
import PostgresNIO

extension PostgresFormStore {
    /// The advisory lock that orders appends to the audit log across nodes (see ``appendAudit(_:versionBefore:versionAfter:on:)``).
    static let auditLockKey: Int64 = 0x466F_726D_4175_6474  // "FormAudt"

    /// Appends the entry `note` describes after the newest one, in the caller's transaction; nothing
    /// when `note` is nil. The transaction-scoped lock makes appends from every node wait their turn,
    /// so no two entries can claim the same predecessor; it is released at commit or rollback.
    func appendAudit(_ note: AuditNote?, versionBefore: Int? = nil, versionAfter: Int? = nil, on connection: PostgresConnection) async throws {
        guard let note else { return }
        try await connection.execute("SELECT pg_advisory_xact_lock(\(Self.auditLockKey))", logger: logger)
        var head: (Int64, String) = (0, AuditChain.genesisHash)
        let rows = try await connection.query(
            "SELECT sequence, hash FROM audit_log ORDER BY sequence DESC LIMIT 1", logger: logger)
        for try await row in rows.decode((Int64, String).self) { head = row }
        let entry = AuditEntry(
            after: head.0, previousHash: head.1, note: note, at: Date(), versionBefore: versionBefore, versionAfter: versionAfter)
        try await connection.execute("""
            INSERT INTO audit_log (sequence, at, actor, action, route, target, version_before, version_after, detail, previous_hash, hash)
            VALUES (\(entry.sequence), \(entry.at.storedMilliseconds), \(entry.actor), \(entry.action), \(entry.route),
                    \(entry.target), \(entry.versionBefore), \(entry.versionAfter), \(entry.detail), \(entry.previousHash), \(entry.hash))
            """, logger: logger)
    }

    public func auditEntries(_ query: AuditQuery) async throws -> [AuditEntry] {
        try await read { connection in
            // Every filter is bound; an absent one is NULL and matches every row.
            let rows = try await connection.query("""
                SELECT sequence, at, actor, action, route, target, version_before, version_after, detail, previous_hash, hash
                FROM audit_log
                WHERE (\(query.after)::bigint IS NULL OR sequence > \(query.after))
                  AND (\(query.before)::bigint IS NULL OR sequence < \(query.before))
                  AND (\(query.actor)::text IS NULL OR actor = \(query.actor))
                  AND (\(query.action)::text IS NULL OR action = \(query.action))
                  AND (\(query.target)::text IS NULL OR target = \(query.target))
                  AND (\(query.from?.storedMilliseconds)::bigint IS NULL OR at >= \(query.from?.storedMilliseconds))
                  AND (\(query.until?.storedMilliseconds)::bigint IS NULL OR at < \(query.until?.storedMilliseconds))
                ORDER BY sequence \(unescaped: query.newestFirst ? "DESC" : "ASC")
                LIMIT \(Int64(clamping: max(query.limit, 0)))
                """, logger: self.logger)
            var entries: [AuditEntry] = []
            for try await (sequence, at, actor, action, route, target, before, after, detail, previous, hash)
                in rows.decode((Int64, Int64, String, String, String, String, Int?, Int?, String?, String, String).self) {
                entries.append(AuditEntry(
                    sequence: sequence, at: Date(storedMilliseconds: at), actor: actor, action: action, route: route,
                    target: target, versionBefore: before, versionAfter: after, detail: detail, previousHash: previous, hash: hash))
            }
            return entries
        }
    }
}
