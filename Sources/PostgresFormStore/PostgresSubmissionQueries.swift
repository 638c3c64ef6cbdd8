import FormStore
import Foundation
import PostgresNIO

/// The submission reads, shared by the store's methods and the group writer.
enum PostgresSubmissionQueries {
    /// The columns ``PostgresRowSequence/submissionRecords()`` reads, in its order.
    static let columns = """
        id, form_id, form_version, received_at, "values", raw_body, idempotency_key, body_hash, client_address
        """

    /// The columns of pages and exports: the raw body is left out (read as an empty one), as neither
    /// shows it and it is as large as the values.
    static let columnsWithoutRawBody = """
        id, form_id, form_version, received_at, "values", ''::bytea, idempotency_key, body_hash, client_address
        """

    /// A form's submissions in `order`, from past `cursor`: up to `limit` rows, ending early once the
    /// values read reach `maxBytes` (always at least one row), without their raw bodies. `more` is
    /// whether rows follow. The rows are read as they arrive, so a page that ends early reads only one
    /// row past its end.
    static func rows(
        formID: String, past cursor: SubmissionCursor?, order: SubmissionOrder, limit: Int, maxBytes: Int,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> (records: [SubmissionRecord], more: Bool) {
        // `id` compares byte by byte (its column is COLLATE "C"), as in SQLite. One row more than asked
        // for tells whether more follow.
        let (past, direction) = switch order {
        case .newestFirst: ("<", "DESC")
        case .oldestFirst: (">", "ASC")
        }
        let query: PostgresQuery = if let cursor {
            """
            SELECT \(unescaped: columnsWithoutRawBody) FROM submissions
            WHERE form_id = \(formID) AND (received_at, id) \(unescaped: past) (\(cursor.receivedAtMilliseconds), \(cursor.id))
            ORDER BY received_at \(unescaped: direction), id \(unescaped: direction) LIMIT \(Int64(limit) + 1)
            """
        } else {
            """
            SELECT \(unescaped: columnsWithoutRawBody) FROM submissions WHERE form_id = \(formID)
            ORDER BY received_at \(unescaped: direction), id \(unescaped: direction) LIMIT \(Int64(limit) + 1)
            """
        }
        var collected: [SubmissionRecord] = []
        var bytes = 0
        for try await record in try await connection.query(query, logger: logger).submissionRecordSequence() {
            guard collected.count < limit else { return (collected, true) }
            if bytes >= maxBytes { return (collected, true) }
            bytes += record.values.utf8.count
            collected.append(record)
        }
        return (collected, false)
    }
}

extension PostgresRowSequence {
    /// The rows as submissions, from columns in ``PostgresSubmissionQueries/columns``' order.
    func submissionRecordSequence() -> some AsyncSequence<SubmissionRecord, any Error> {
        decode((String, String, Int, Int64, String, ByteBuffer, String?, String?, String?).self).map {
            (id, formID, formVersion, receivedAt, values, rawBody, key, bodyHash, clientAddress) in
            SubmissionRecord(
                id: id, formID: formID, formVersion: formVersion, receivedAt: Date(storedMilliseconds: receivedAt),
                values: values, rawBody: Array(rawBody.readableBytesView), idempotencyKey: key, bodyHash: bodyHash,
                clientAddress: clientAddress)
        }
    }

    /// Every row as a submission.
    func submissionRecords() async throws -> [SubmissionRecord] {
        var records: [SubmissionRecord] = []
        for try await record in submissionRecordSequence() { records.append(record) }
        return records
    }
}
