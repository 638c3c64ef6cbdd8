import FormStore
import Foundation
import PostgresNIO

/// Upload records. Binding them to submissions is the group writer's (`SubmissionGroupWriter`).
extension PostgresFormStore: UploadStore {
    public func createUpload(_ upload: UploadRecord) async throws {
        let inserted = try await read { connection in
            do {
                return try await connection.query("""
                    INSERT INTO uploads (\(unescaped: PostgresUploadQueries.columns))
                    VALUES (\(upload.id), \(upload.formID), \(upload.field), \(upload.filename), \(upload.contentType),
                        \(upload.declaredSize), \(upload.received), \(upload.sha256), \(upload.isComplete),
                        \(upload.storageKey), \(upload.clientAddress), \(upload.createdAt.storedMilliseconds),
                        \(upload.expiresAt.storedMilliseconds), \(upload.submissionID))
                    ON CONFLICT (id) DO NOTHING
                    RETURNING 1
                    """, logger: self.logger).first(as: Int.self) != nil
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23503" {
                throw StoreError.notFound(upload.missingReference)
            }
        }
        guard inserted else { throw StoreError.conflict("upload \(upload.id) exists") }
    }

    public func upload(id: String) async throws -> UploadRecord? {
        try await read { connection in
            try await connection.query(
                "SELECT \(unescaped: PostgresUploadQueries.columns) FROM uploads WHERE id = \(id)", logger: self.logger
            ).uploadRecords().first
        }
    }

    public func uploads(ids: [String]) async throws -> [UploadRecord] {
        if ids.isEmpty { return [] }
        return try await read { connection in
            try await connection.query(
                "SELECT \(unescaped: PostgresUploadQueries.columns) FROM uploads WHERE id = ANY(\(ids))", logger: self.logger
            ).uploadRecords()
        }.ordered(by: ids)
    }

    public func uploads(submissionID: String) async throws -> [UploadRecord] {
        try await read { connection in
            try await connection.query("""
                SELECT \(unescaped: PostgresUploadQueries.columns) FROM uploads
                WHERE submission_id = \(submissionID) ORDER BY created_at, id
                """, logger: self.logger).uploadRecords()
        }
    }

    public func recordProgress(id: String, from: Int, to: Int) async throws -> Bool {
        try await read { connection in
            try await connection.query("""
                UPDATE uploads SET received = \(to) WHERE id = \(id) AND received = \(from) AND NOT complete
                RETURNING 1
                """, logger: self.logger).first(as: Int.self) != nil
        }
    }

    public func completeUpload(id: String, size: Int, sha256: String, contentType: String) async throws {
        // One statement: whether this call completed the upload, and whether it exists at all.
        let (completed, exists) = try await read { connection in
            let rows = try await connection.query("""
                WITH completed AS (
                    UPDATE uploads SET complete = true, received = \(size), declared_size = \(size), sha256 = \(sha256),
                        content_type = \(contentType)
                    WHERE id = \(id) AND NOT complete
                    RETURNING 1
                )
                SELECT EXISTS (SELECT 1 FROM completed), EXISTS (SELECT 1 FROM uploads WHERE id = \(id))
                """, logger: self.logger)
            for try await answer in rows.decode((Bool, Bool).self) { return answer }
            return (false, false)
        }
        if completed { return }
        throw exists ? StoreError.conflict("upload \(id) is complete already") : StoreError.notFound("upload \(id)")
    }

    public func deleteUnboundUpload(id: String) async throws -> Bool {
        try await read { connection in
            try await connection.query(
                "DELETE FROM uploads WHERE id = \(id) AND submission_id IS NULL RETURNING 1", logger: self.logger
            ).first(as: Int.self) != nil
        }
    }

    public func expiredUploads(before date: Date, limit: Int) async throws -> [UploadRecord] {
        try await read { connection in
            try await connection.query("""
                SELECT \(unescaped: PostgresUploadQueries.columns) FROM uploads
                WHERE submission_id IS NULL AND expires_at < \(date.storedMilliseconds)
                ORDER BY expires_at, id LIMIT \(Int64(clamping: limit))
                """, logger: self.logger).uploadRecords()
        }
    }

    public func incompleteUploadCount(clientAddress: String?, since: Date) async throws -> Int {
        try await read { connection in
            let query: PostgresQuery = if let clientAddress {
                """
                SELECT COUNT(*) FROM uploads
                WHERE NOT complete AND client_address = \(clientAddress) AND created_at >= \(since.storedMilliseconds)
                """
            } else {
                "SELECT COUNT(*) FROM uploads WHERE NOT complete AND created_at >= \(since.storedMilliseconds)"
            }
            return try await connection.query(query, logger: self.logger).first(as: Int.self) ?? 0
        }
    }
}
