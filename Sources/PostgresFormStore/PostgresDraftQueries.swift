import FormStore
import Foundation
import PostgresNIO

/// The draft statements shared by the store's methods.
enum PostgresDraftQueries {
    /// The columns ``PostgresRowSequence/draftRecords()`` reads, in its order.
    static let columns = """
        id, form_id, form_version, token_hash, revision, "values", client_address, created_at, updated_at, expires_at,
            submission_id
        """

    static func draft(id: String, on connection: PostgresConnection, logger: Logger) async throws -> DraftRecord? {
        try await connection.query("SELECT \(unescaped: columns) FROM drafts WHERE id = \(id)", logger: logger)
            .draftRecords().first
    }

    /// Ties the unbound uploads of the draft's form among `uploadIDs` to the draft, and keeps each at
    /// least until `expiresAt`. Locked in id order, as the group writer locks the uploads it binds.
    static func tieUploads(
        _ uploadIDs: [String], to draftID: String, formID: String, expiresAt: Date, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        if uploadIDs.isEmpty { return }
        try await connection.execute("""
            UPDATE uploads SET draft_id = \(draftID), expires_at = GREATEST(expires_at, \(expiresAt.storedMilliseconds))
            WHERE id IN (
                SELECT id FROM uploads WHERE id = ANY(\(uploadIDs)) AND submission_id IS NULL AND form_id = \(formID)
                ORDER BY id FOR UPDATE)
            """, logger: logger)
    }

    /// Lets go of the unbound uploads of deleted drafts: they expire now, for the upload sweeper, and
    /// no longer name the drafts. Uploads bound to a submission keep theirs.
    static func releaseUploads(ofDrafts draftIDs: [String], on connection: PostgresConnection, logger: Logger) async throws {
        if draftIDs.isEmpty { return }
        try await connection.execute("""
            UPDATE uploads SET expires_at = LEAST(expires_at, \(Date().storedMilliseconds)), draft_id = NULL
            WHERE id IN (
                SELECT id FROM uploads WHERE draft_id = ANY(\(draftIDs)) AND submission_id IS NULL ORDER BY id FOR UPDATE)
            """, logger: logger)
    }
}

extension PostgresRowSequence {
    /// The rows as drafts, from columns in ``PostgresDraftQueries/columns``' order.
    func draftRecords() async throws -> [DraftRecord] {
        var records: [DraftRecord] = []
        for try await (id, formID, formVersion, tokenHash, revision, values, clientAddress, createdAt, updatedAt, expiresAt,
                       submissionID)
            in decode((String, String, Int, String, Int, String, String?, Int64, Int64, Int64, String?).self) {
            records.append(DraftRecord(
                id: id, formID: formID, formVersion: formVersion, tokenHash: tokenHash, revision: revision, values: values,
                clientAddress: clientAddress, createdAt: Date(storedMilliseconds: createdAt),
                updatedAt: Date(storedMilliseconds: updatedAt), expiresAt: Date(storedMilliseconds: expiresAt),
                submissionID: submissionID))
        }
        return records
    }
}
