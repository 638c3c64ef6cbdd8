import Foundation
import GRDB

extension SQLiteFormStore {
    public func createUpload(_ upload: UploadRecord) async throws {
        try await write { db in
            do {
                try db.execute(sql: """
                    INSERT INTO uploads (\(UploadQueries.columns))
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [
                        upload.id, upload.formID, upload.field, upload.filename, upload.contentType, upload.declaredSize,
                        upload.received, upload.sha256, upload.isComplete, upload.storageKey, upload.clientAddress,
                        upload.createdAt.storedMilliseconds, upload.expiresAt.storedMilliseconds, upload.submissionID,
                    ])
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
                throw StoreError.notFound(upload.missingReference)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw StoreError.conflict("upload \(upload.id) exists")
            }
        }
    }

    public func upload(id: String) async throws -> UploadRecord? {
        try await read { db in
            try UploadRecord.fetchOne(db, sql: "SELECT \(UploadQueries.columns) FROM uploads WHERE id = ?", arguments: [id])
        }
    }

    public func uploads(ids: [String]) async throws -> [UploadRecord] {
        if ids.isEmpty { return [] }
        let found = try await read { db in
            try UploadRecord.fetchAll(db, sql: """
                SELECT \(UploadQueries.columns) FROM uploads WHERE id IN (\(databaseQuestionMarks(count: ids.count)))
                """, arguments: StatementArguments(ids))
        }
        return found.ordered(by: ids)
    }

    public func uploads(submissionID: String) async throws -> [UploadRecord] {
        try await read { db in
            try UploadRecord.fetchAll(db, sql: """
                SELECT \(UploadQueries.columns) FROM uploads WHERE submission_id = ? ORDER BY created_at, id
                """, arguments: [submissionID])
        }
    }

    public func recordProgress(id: String, from: Int, to: Int) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: "UPDATE uploads SET received = ? WHERE id = ? AND received = ? AND complete = 0",
                arguments: [to, id, from])
            return db.changesCount > 0
        }
    }

    public func completeUpload(id: String, size: Int, sha256: String, contentType: String) async throws {
        try await write { db in
            try db.execute(sql: """
                UPDATE uploads SET complete = 1, received = ?, declared_size = ?, sha256 = ?, content_type = ?
                WHERE id = ? AND complete = 0
                """, arguments: [size, size, sha256, contentType, id])
            if db.changesCount > 0 { return }
            let exists = try Int.fetchOne(db, sql: "SELECT 1 FROM uploads WHERE id = ?", arguments: [id]) != nil
            throw exists ? StoreError.conflict("upload \(id) is complete already") : StoreError.notFound("upload \(id)")
        }
    }

    public func deleteUnboundUpload(id: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM uploads WHERE id = ? AND submission_id IS NULL", arguments: [id])
            return db.changesCount > 0
        }
    }

    public func expiredUploads(before date: Date, limit: Int) async throws -> [UploadRecord] {
        try await read { db in
            try UploadRecord.fetchAll(db, sql: """
                SELECT \(UploadQueries.columns) FROM uploads
                WHERE submission_id IS NULL AND expires_at < ?
                ORDER BY expires_at, id LIMIT ?
                """, arguments: [date.storedMilliseconds, Int64(clamping: limit)])
        }
    }

    public func incompleteUploadCount(clientAddress: String?, since: Date) async throws -> Int {
        try await read { db in
            if let clientAddress {
                return try Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM uploads WHERE complete = 0 AND client_address = ? AND created_at >= ?
                    """, arguments: [clientAddress, since.storedMilliseconds]) ?? 0
            }
            return try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM uploads WHERE complete = 0 AND created_at >= ?",
                arguments: [since.storedMilliseconds]) ?? 0
        }
    }
}
