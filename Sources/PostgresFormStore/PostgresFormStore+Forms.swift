import FormStore
import Foundation
import PostgresNIO

extension PostgresFormStore: FormVersionStore {
    public func saveFormVersion(
        formID: String, definition: String, title: String, contentHash: String, createOnly: Bool,
        precondition: (@Sendable (Int?) -> Bool)?, audit: AuditNote?
    ) async throws -> SavedVersion {
        try await transaction { connection in
            let now = Date().storedMilliseconds
            let form = try await self.lockedFormState(formID, on: connection)
            try FormRowState.check(precondition, form: form)
            guard let form else {
                try await connection.execute("""
                    INSERT INTO forms (id, created_at, updated_at, deleted_at, current_version)
                    VALUES (\(formID), \(now), \(now), NULL, 1)
                    """, logger: self.logger)
                try await self.insertVersion(formID: formID, version: 1, definition: definition, title: title,
                                             contentHash: contentHash, now: now, on: connection)
                try await self.recordFormChange(formID, on: connection)
                try await self.appendAudit(audit, versionAfter: 1, on: connection)
                return SavedVersion(version: 1, createdForm: true, createdVersion: true)
            }
            let deleted = form.deletedAt != nil
            if createOnly, !deleted { throw StoreError.conflict("form \(formID) exists") }
            if !deleted {
                let currentHash = try await connection.query("""
                    SELECT content_hash FROM form_versions WHERE form_id = \(formID) AND version = \(form.currentVersion)
                    """, logger: self.logger).first(as: String.self)
                if currentHash == contentHash {
                    return SavedVersion(version: form.currentVersion, createdForm: false, createdVersion: false)
                }
            }
            let latest = try await connection.query(
                "SELECT MAX(version) FROM form_versions WHERE form_id = \(formID)", logger: self.logger
            ).first(as: Int?.self) ?? nil
            let version = (latest ?? form.currentVersion) + 1
            try await self.insertVersion(formID: formID, version: version, definition: definition, title: title,
                                         contentHash: contentHash, now: now, on: connection)
            try await connection.execute("""
                UPDATE forms SET current_version = \(version), updated_at = \(now), deleted_at = NULL WHERE id = \(formID)
                """, logger: self.logger)
            try await self.recordFormChange(formID, on: connection)
            try await self.appendAudit(audit, versionBefore: deleted ? nil : form.currentVersion, versionAfter: version, on: connection)
            return SavedVersion(version: version, createdForm: deleted, createdVersion: true)
        }
    }

    public func currentForm(id: String) async throws -> FormVersionRecord? {
        try await read { connection in
            try await connection.query("""
                SELECT \(unescaped: Self.formVersionColumns)
                FROM forms f JOIN form_versions v ON v.form_id = f.id AND v.version = f.current_version
                WHERE f.id = \(id) AND f.deleted_at IS NULL
                """, logger: self.logger).formVersionRecords().first
        }
    }

    public func formVersion(id: String, version: Int) async throws -> FormVersionRecord? {
        try await read { connection in
            try await connection.query("""
                SELECT \(unescaped: Self.formVersionColumns)
                FROM forms f JOIN form_versions v ON v.form_id = f.id
                WHERE f.id = \(id) AND v.version = \(version)
                """, logger: self.logger).formVersionRecords().first
        }
    }

    public func formVersions(id: String, after: Int?, limit: Int) async throws -> [FormVersionSummary] {
        try await read { connection in
            var versions: [FormVersionSummary] = []
            let rows = try await connection.query("""
                SELECT version, title, created_at, content_hash FROM form_versions
                WHERE form_id = \(id) AND version > \(after ?? 0) ORDER BY version LIMIT \(limit)
                """, logger: self.logger)
            for try await (version, title, createdAt, contentHash) in rows.decode((Int, String, Int64, String).self) {
                versions.append(FormVersionSummary(
                    version: version, title: title, createdAt: Date(storedMilliseconds: createdAt),
                    contentHash: contentHash))
            }
            return versions
        }
    }

    public func listForms(after: String?, limit: Int) async throws -> [FormSummary] {
        try await read { connection in
            var forms: [FormSummary] = []
            // `forms.id` is COLLATE "C", so both the comparison and the order are binary. Every id sorts
            // after "" (ids are never empty), so the first page needs no second statement.
            let rows = try await connection.query("""
                SELECT f.id, v.title, f.current_version, f.updated_at, f.submission_count
                FROM forms f JOIN form_versions v ON v.form_id = f.id AND v.version = f.current_version
                WHERE f.deleted_at IS NULL AND f.id > \(after ?? "")
                ORDER BY f.id
                LIMIT \(limit)
                """, logger: self.logger)
            for try await (id, title, version, updatedAt, submissions) in rows.decode((String, String, Int, Int64, Int).self) {
                forms.append(FormSummary(
                    id: id, title: title, version: version, updatedAt: Date(storedMilliseconds: updatedAt),
                    submissionCount: submissions))
            }
            return forms
        }
    }

    public func deleteForm(id: String, precondition: (@Sendable (Int?) -> Bool)?, audit: AuditNote?) async throws -> Bool {
        try await transaction { connection in
            let now = Date().storedMilliseconds
            // Locked even without a precondition: a save of this form running meanwhile must not decide on
            // the state from before this delete.
            let form = try await self.lockedFormState(id, on: connection)
            try FormRowState.check(precondition, form: form)
            let deleted = try await connection.query("""
                UPDATE forms SET deleted_at = \(now), updated_at = \(now) WHERE id = \(id) AND deleted_at IS NULL
                RETURNING 1
                """, logger: self.logger).first(as: Int.self)
            guard deleted != nil else { return false }
            try await self.recordFormChange(id, on: connection)
            try await self.appendAudit(audit, versionBefore: form?.currentVersion, on: connection)
            return true
        }
    }

    public func formExists(id: String, includingDeleted: Bool) async throws -> Bool {
        try await read { connection in
            let query: PostgresQuery = includingDeleted
                ? "SELECT 1 FROM forms WHERE id = \(id)"
                : "SELECT 1 FROM forms WHERE id = \(id) AND deleted_at IS NULL"
            return try await connection.query(query, logger: self.logger).first(as: Int.self) != nil
        }
    }

    /// The form's state, nil when there is no such form, after taking the form's transaction lock: two
    /// nodes saving the same form (even one that does not exist yet) then decide one after the other.
    private func lockedFormState(_ id: String, on connection: PostgresConnection) async throws -> FormRowState? {
        try await connection.execute(
            "SELECT pg_advisory_xact_lock(\(Self.formLockClass), hashtext(\(id)))", logger: logger)
        let rows = try await connection.query(
            "SELECT current_version, deleted_at FROM forms WHERE id = \(id)", logger: logger)
        for try await (currentVersion, deletedAt) in rows.decode((Int, Int64?).self) {
            return FormRowState(currentVersion: currentVersion, deletedAt: deletedAt)
        }
        return nil
    }

    /// Numbers the form's change in the change feed and notifies the other nodes on commit. The
    /// number is taken under one lock held until COMMIT, so numbers become visible in order: a node
    /// reading the feed past the last number it saw cannot pass over a change committed later.
    private func recordFormChange(_ id: String, on connection: PostgresConnection) async throws {
        try await connection.execute("SELECT pg_advisory_xact_lock(\(Self.formChangeLockKey))", logger: logger)
        try await connection.execute(
            "UPDATE forms SET changed = nextval('form_changes') WHERE id = \(id)", logger: logger)
        try await connection.execute("SELECT pg_notify(\(ChangeListener.formsChannel), \(id))", logger: logger)
    }

    /// The single-key advisory lock that orders the form change feed (single keys never collide with
    /// the two-key form locks).
    private static let formChangeLockKey: Int64 = 0x466F_726D_4368_6E67  // "FormChng"

    /// The columns `formVersionRecords()` reads, by position, from `forms f` joined with `form_versions v`.
    private static let formVersionColumns = """
        v.form_id, v.version, v.definition, v.content_hash, v.title, v.created_at, f.current_version, f.deleted_at
        """

    /// The first key of the per-form transaction locks (the second is the id's hash); advisory locks
    /// taken with two keys never collide with the single-key migration lock.
    private static let formLockClass: Int32 = 0x466F_726D  // "Form"

    private func insertVersion(
        formID: String, version: Int, definition: String, title: String, contentHash: String, now: Int64,
        on connection: PostgresConnection
    ) async throws {
        try await connection.execute("""
            INSERT INTO form_versions (form_id, version, definition, content_hash, title, created_at)
            VALUES (\(formID), \(version), \(definition), \(contentHash), \(title), \(now))
            """, logger: logger)
    }
}

extension PostgresRowSequence {
    /// The first row's only column, nil when there is no row.
    func first<T: PostgresDecodable & Sendable>(as type: T.Type) async throws -> T? {
        for try await value in decode(T.self) { return value }
        return nil
    }

    /// The rows as form versions, from columns in ``FormVersionRecord``'s order.
    fileprivate func formVersionRecords() async throws -> [FormVersionRecord] {
        var records: [FormVersionRecord] = []
        for try await (formID, version, definition, contentHash, title, createdAt, currentVersion, deletedAt)
            in decode((String, Int, String, String, String, Int64, Int, Int64?).self) {
            records.append(FormVersionRecord(
                formID: formID, version: version, definition: definition, contentHash: contentHash, title: title,
                createdAt: Date(storedMilliseconds: createdAt), currentVersion: currentVersion,
                formDeletedAt: deletedAt.map(Date.init(storedMilliseconds:))))
        }
        return records
    }
}
