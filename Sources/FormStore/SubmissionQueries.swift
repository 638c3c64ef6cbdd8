import GRDB

/// The submission reads, shared by the store's methods and the group writer.
enum SubmissionQueries {
    static let columns = """
        id, form_id, form_version, received_at, "values", raw_body, idempotency_key, body_hash, client_address
        """

    static func submission(id: String, in db: Database) throws -> SubmissionRecord? {
        try Row.fetchOne(db, sql: "SELECT \(columns) FROM submissions WHERE id = ?", arguments: [id])
            .map(SubmissionRecord.init(row:))
    }

    static func submission(formID: String, idempotencyKey: String, in db: Database) throws -> SubmissionRecord? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT \(columns) FROM submissions WHERE form_id = ? AND idempotency_key = ?"),
            arguments: [formID, idempotencyKey]
        ).map(SubmissionRecord.init(row:))
    }

    /// Newest first, strictly before `cursor`: up to `limit` rows, ending early once the values read
    /// reach `maxBytes` (always at least one row); raw bodies are left out, as a page does not show
    /// them. `more` is whether rows follow.
    static func page(
        formID: String, before cursor: SubmissionCursor?, limit: Int, maxBytes: Int, in db: Database
    ) throws -> (records: [SubmissionRecord], more: Bool) {
        let rows: RowCursor
        if let cursor {
            rows = try Row.fetchCursor(db, sql: """
                SELECT \(columnsWithoutRawBody) FROM submissions
                WHERE form_id = ? AND (received_at, id) < (?, ?)
                ORDER BY received_at DESC, id DESC LIMIT ?
                """, arguments: [formID, cursor.receivedAtMilliseconds, cursor.id, limit + 1])
        } else {
            rows = try Row.fetchCursor(db, sql: """
                SELECT \(columnsWithoutRawBody) FROM submissions WHERE form_id = ?
                ORDER BY received_at DESC, id DESC LIMIT ?
                """, arguments: [formID, limit + 1])
        }
        return try collect(rows, limit: limit, maxBytes: maxBytes)
    }

    /// Reads up to `limit` records from `rows` (which asks for one more, to tell whether more follow),
    /// stopping after the record that brings the values read to `maxBytes`; `more` is exact.
    private static func collect(_ rows: RowCursor, limit: Int, maxBytes: Int) throws -> (records: [SubmissionRecord], more: Bool) {
        var records: [SubmissionRecord] = []
        var bytes = 0
        while let row = try rows.next() {
            guard records.count < limit else { return (records, true) }
            let record = SubmissionRecord(row: row)
            bytes += record.values.utf8.count
            records.append(record)
            if bytes >= maxBytes { return (records, try rows.next() != nil) }
        }
        return (records, false)
    }

    /// Oldest first, strictly after `cursor`.
    /// The export's columns: the raw body is left out (read as an empty blob).
    static let columnsWithoutRawBody = """
        id, form_id, form_version, received_at, "values", x'' AS raw_body, idempotency_key, body_hash, client_address
        """

    /// Oldest first, strictly after `cursor`: up to `limit` rows, ending early once the values read
    /// reach `maxBytes` (always at least one row). `more` is false when the form has no rows after.
    static func batch(
        formID: String, after cursor: SubmissionCursor?, limit: Int, maxBytes: Int, in db: Database
    ) throws -> (records: [SubmissionRecord], more: Bool) {
        let rows: RowCursor
        if let cursor {
            rows = try Row.fetchCursor(db, sql: """
                SELECT \(columnsWithoutRawBody) FROM submissions
                WHERE form_id = ? AND (received_at, id) > (?, ?)
                ORDER BY received_at, id LIMIT ?
                """, arguments: [formID, cursor.receivedAtMilliseconds, cursor.id, limit + 1])
        } else {
            rows = try Row.fetchCursor(db, sql: """
                SELECT \(columnsWithoutRawBody) FROM submissions WHERE form_id = ?
                ORDER BY received_at, id LIMIT ?
                """, arguments: [formID, limit + 1])
        }
        return try collect(rows, limit: limit, maxBytes: maxBytes)
    }
}
