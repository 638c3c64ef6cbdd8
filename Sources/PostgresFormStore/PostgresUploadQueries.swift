import FormStore
import Foundation
import PostgresNIO

/// The upload reads, shared by the store's methods and the group writer.
enum PostgresUploadQueries {
    /// The columns ``PostgresRowSequence/uploadRecords()`` reads, in its order.
    static let columns = """
        id, form_id, field, filename, content_type, declared_size, received, sha256, complete, storage_key,
            client_address, created_at, expires_at, submission_id
        """
}

extension PostgresRowSequence {
    /// The rows as uploads, from columns in ``PostgresUploadQueries/columns``' order.
    func uploadRecords() async throws -> [UploadRecord] {
        var records: [UploadRecord] = []
        for try await (id, formID, field, filename, contentType, declaredSize, received, sha256, complete, storageKey,
                       clientAddress, createdAt, expiresAt, submissionID)
            in decode((String, String, String, String?, String, Int?, Int, String?, Bool, String, String?, Int64, Int64,
                       String?).self) {
            records.append(UploadRecord(
                id: id, formID: formID, field: field, filename: filename, contentType: contentType,
                declaredSize: declaredSize, received: received, sha256: sha256, isComplete: complete,
                storageKey: storageKey, clientAddress: clientAddress, createdAt: Date(storedMilliseconds: createdAt),
                expiresAt: Date(storedMilliseconds: expiresAt), submissionID: submissionID))
        }
        return records
    }
}
