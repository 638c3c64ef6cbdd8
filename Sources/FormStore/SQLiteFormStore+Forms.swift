import Foundation
import GRDB

extension SQLiteFormStore {
    public func saveFormVersion(
        formID: String, definition: String, title: String, contentHash: String, createOnly: Bool,
        precondition: (@Sendable (Int?) -> Bool)?, audit: AuditNote?
    ) async throws -> SavedVersion {
        try await write { db in
            let now = Date().storedMilliseconds
            let form = try Self.formState(formID, in: db)
            try FormRowState.check(precondition, form: form)
            guard let form else {
                try db.execute(sql: """
                    INSERT INTO forms (id, created_at, updated_at, deleted_at, current_version) VALUES (?, ?, ?, NULL, 1)
                    """, arguments: [formID, now, now])
                try Self.insertVersion(formID: formID, version: 1, definition: definition, title: title,
                                       contentHash: contentHash, now: now, in: db)
                try AuditLog.append(audit, versionAfter: 1, in: db)
                return SavedVersion(version: 1, createdForm: true, createdVersion: true)
            }
            let current = form.currentVersion
            let deleted = form.deletedAt != nil
            if createOnly, !deleted { throw StoreError.conflict("form \(formID) exists") }
            if !deleted {
                let currentHash = try String.fetchOne(
                    db, sql: "SELECT content_hash FROM form_versions WHERE form_id = ? AND version = ?",
                    arguments: [formID, current])
                if currentHash == contentHash {
                    return SavedVersion(version: current, createdForm: false, createdVersion: false)
                }
            }
            let latest = try Int.fetchOne(
                db, sql: "SELECT MAX(version) FROM form_versions WHERE form_id = ?", arguments: [formID]) ?? current
            let version = latest + 1
            try Self.insertVersion(formID: formID, version: version, definition: definition, title: title,
                                   contentHash: contentHash, now: now, in: db)
            try db.execute(sql: """
                UPDATE forms SET current_version = ?, updated_at = ?, deleted_at = NULL WHERE id = ?
                """, arguments: [version, now, formID])
            try AuditLog.append(audit, versionBefore: deleted ? nil : current, versionAfter: version, in: db)
            return SavedVersion(version: version, createdForm: deleted, createdVersion: true)
        }
    }

    public func currentForm(id: String) async throws -> FormVersionRecord? {
        try await read { db in
            try FormVersionRecord.fetchOne(db, sql: """
                SELECT v.*, f.current_version, f.deleted_at AS form_deleted_at
                FROM forms f JOIN form_versions v ON v.form_id = f.id AND v.version = f.current_version
                WHERE f.id = ? AND f.deleted_at IS NULL
                """, arguments: [id])
        }
    }

    public func formVersion(id: String, version: Int) async throws -> FormVersionRecord? {
        try await read { db in
            try FormVersionRecord.fetchOne(db, sql: """
                SELECT v.*, f.current_version, f.deleted_at AS form_deleted_at
                FROM forms f JOIN form_versions v ON v.form_id = f.id
                WHERE f.id = ? AND v.version = ?
                """, arguments: [id, version])
        }
    }

    public func formVersions(id: String, after: Int?, limit: Int) async throws -> [FormVersionSummary] {
        try await read { db in
            try FormVersionSummary.fetchAll(db, sql: """
                SELECT version, title, created_at, content_hash FROM form_versions
                WHERE form_id = ? AND version > ? ORDER BY version LIMIT ?
                """, arguments: [id, after ?? 0, Int64(clamping: limit)])
        }
    }

    public func listForms(after: String?, limit: Int) async throws -> [FormSummary] {
        try await read { db in
            // Every id sorts after "" (ids are never empty), so the first page needs no second statement.
            try FormSummary.fetchAll(db, sql: """
                SELECT f.id, v.title, f.current_version, f.updated_at, f.submission_count
                FROM forms f JOIN form_versions v ON v.form_id = f.id AND v.version = f.current_version
                WHERE f.deleted_at IS NULL AND f.id > ?
                ORDER BY f.id
                LIMIT ?
                """, arguments: [after ?? "", Int64(clamping: limit)])
        }
    }

    public func deleteForm(id: String, precondition: (@Sendable (Int?) -> Bool)?, audit: AuditNote?) async throws -> Bool {
        try await write { db in
            let now = Date().storedMilliseconds
            let form = try Self.formState(id, in: db)
            try FormRowState.check(precondition, form: form)
            try db.execute(
                sql: "UPDATE forms SET deleted_at = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL",
                arguments: [now, now, id])
            guard db.changesCount > 0 else { return false }
            try AuditLog.append(audit, versionBefore: form?.currentVersion, in: db)
            return true
        }
    }

    public func formExists(id: String, includingDeleted: Bool) async throws -> Bool {
        try await read { db in
            let sql = includingDeleted
                ? "SELECT 1 FROM forms WHERE id = ?"
                : "SELECT 1 FROM forms WHERE id = ? AND deleted_at IS NULL"
            return try Int.fetchOne(db, sql: sql, arguments: [id]) != nil
        }
    }

    /// The form's state, nil when there is no such form.
    private static func formState(_ id: String, in db: Database) throws -> FormRowState? {
        try FormRowState.fetchOne(db, sql: "SELECT current_version, deleted_at FROM forms WHERE id = ?", arguments: [id])
    }

    private static func insertVersion(
        formID: String, version: Int, definition: String, title: String, contentHash: String, now: Int64,
        in db: Database
    ) throws {
        try db.execute(sql: """
            INSERT INTO form_versions (form_id, version, definition, content_hash, title, created_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [formID, version, definition, contentHash, title, now])
    }
}

extension FormRowState: FetchableRecord {}
