import FormStore
import Foundation
import PostgresNIO

extension PostgresFormStore {
    public func deleteSubmissions(formID: String, receivedBefore date: Date, limit: Int) async throws -> DeletedSubmissions {
        try await transaction { connection in
            // Locked, so that a delivery claim or a second node's sweep cannot work on them meanwhile.
            let rows = try await connection.query("""
                SELECT id FROM submissions WHERE form_id = \(formID) AND received_at < \(date.storedMilliseconds)
                ORDER BY received_at, id LIMIT \(Int64(clamping: max(limit, 0))) FOR UPDATE SKIP LOCKED
                """, logger: self.logger)
            var ids: [String] = []
            for try await id in rows.decode(String.self) { ids.append(id) }
            return try await self.deleteSubmissionRows(ids, formID: formID, on: connection)
        }
    }

    public func formsHoldingSubmissions() async throws -> [(id: String, currentVersion: Int)] {
        try await read { connection in
            let rows = try await connection.query(
                "SELECT id, current_version FROM forms WHERE submission_count > 0 ORDER BY id", logger: self.logger)
            var forms: [(id: String, currentVersion: Int)] = []
            for try await (id, version) in rows.decode((String, Int).self) { forms.append((id, version)) }
            return forms
        }
    }

    public func eraseSubmissions(ids: [String], formID: String, audit: AuditNote?) async throws -> DeletedSubmissions {
        guard !ids.isEmpty else { return DeletedSubmissions() }
        return try await transaction { connection in
            let rows = try await connection.query("""
                SELECT id FROM submissions WHERE form_id = \(formID) AND id = ANY(\(ids)) ORDER BY id FOR UPDATE
                """, logger: self.logger)
            var found: [String] = []
            for try await id in rows.decode(String.self) { found.append(id) }
            let deleted = try await self.deleteSubmissionRows(found, formID: formID, on: connection)
            if deleted.submissions > 0 { try await self.appendAudit(audit, on: connection) }
            return deleted
        }
    }

    /// Nothing: dead rows are the server's to reclaim (VACUUM), as the operations guide says.
    public func scrubDeletedData() async throws {}

    /// Deletes submissions, locked by the caller, with everything that refers to them.
    private func deleteSubmissionRows(_ ids: [String], formID: String, on connection: PostgresConnection) async throws -> DeletedSubmissions {
        guard !ids.isEmpty else { return DeletedSubmissions() }
        let attempts = try await count(on: connection, """
            DELETE FROM delivery_attempts
            WHERE delivery_id IN (SELECT id FROM deliveries WHERE submission_id = ANY(\(ids))) RETURNING 1
            """)
        let deliveries = try await count(on: connection, "DELETE FROM deliveries WHERE submission_id = ANY(\(ids)) RETURNING 1")
        // Unbound and already expired: the upload sweeper removes the record and the bytes.
        let files = try await count(on: connection, """
            UPDATE uploads SET submission_id = NULL, draft_id = NULL, expires_at = \(Date().storedMilliseconds - 1)
            WHERE submission_id = ANY(\(ids)) RETURNING 1
            """)
        try await connection.execute("DELETE FROM drafts WHERE submission_id = ANY(\(ids))", logger: logger)
        let submissions = try await count(on: connection, "DELETE FROM submissions WHERE id = ANY(\(ids)) RETURNING 1")
        try await connection.execute(
            "UPDATE forms SET submission_count = GREATEST(0, submission_count - \(submissions)) WHERE id = \(formID)",
            logger: logger)
        return DeletedSubmissions(submissions: submissions, deliveries: deliveries, attempts: attempts, files: files)
    }

    /// The rows a `… RETURNING 1` statement touched.
    private func count(on connection: PostgresConnection, _ query: PostgresQuery) async throws -> Int {
        try await connection.query(query, logger: logger).collect().count
    }
}
