import GRDB

/// The submission reads, shared by the store's methods and the group writer.
enum SubmissionQueries {
    static let columns = """
        id, form_id, form_version, received_at, "values", raw_body, idempotency_key, body_hash, client_address
        """

    /// The columns of pages and exports: the raw body is left out (read as an empty blob), as neither
    /// shows it and it is as large as the values.
    static let columnsWithoutRawBody = """
        id, form_id, form_version, received_at, "values", x'' AS raw_body, idempotency_key, body_hash, client_address
        """

    static func submission(id: String, in db: Database) throws -> SubmissionRecord? {
        try SubmissionRecord.fetchOne(db, sql: "SELECT \(columns) FROM submissions WHERE id = ?", arguments: [id])
    }

    static func submission(formID: String, idempotencyKey: String, in db: Database) throws -> SubmissionRecord? {
        try SubmissionRecord.fetchOne(
            db.cachedStatement(sql: "SELECT \(columns) FROM submissions WHERE form_id = ? AND idempotency_key = ?"),
            arguments: [formID, idempotencyKey])
    }

    /// A form's submissions in `order`, from past `cursor`: up to `limit` rows, ending early once the
    /// values read reach `maxBytes` (always at least one row), without their raw bodies. `more` is
    /// whether rows follow.
    static func rows(
        formID: String, past cursor: SubmissionCursor?, order: SubmissionOrder, limit: Int, maxBytes: Int, in db: Database
    ) throws -> (records: [SubmissionRecord], more: Bool) {
        let (past, direction) = switch order {
        case .newestFirst: ("<", "DESC")
        case .oldestFirst: (">", "ASC")
        }
        var arguments: StatementArguments = [formID]
        var after = ""
        if let cursor {
            after = "AND (received_at, id) \(past) (?, ?)"
            arguments += [cursor.receivedAtMilliseconds, cursor.id]
        }
        // One row more than asked for tells whether more follow.
        arguments += [limit + 1]
        let records = try SubmissionRecord.fetchCursor(db, sql: """
            SELECT \(columnsWithoutRawBody) FROM submissions
            WHERE form_id = ? \(after)
            ORDER BY received_at \(direction), id \(direction) LIMIT ?
            """, arguments: arguments)
        var collected: [SubmissionRecord] = []
        var bytes = 0
        while let record = try records.next() {
            guard collected.count < limit else { return (collected, true) }
            bytes += record.values.utf8.count
            collected.append(record)
            if bytes >= maxBytes { return (collected, try records.next() != nil) }
        }
        return (collected, false)
    }
}
