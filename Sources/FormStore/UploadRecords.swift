import Foundation
import GRDB

/// A file uploaded for a form's input: received whole (a simple upload) or piece by piece (tus),
/// then bound to the submission that names it. Its bytes are in the file storage under
/// ``storageKey``; the store keeps only this record. Dates are stored with millisecond precision.
public struct UploadRecord: Sendable, Equatable {
    /// `upl_…`, made by the caller.
    public var id: String
    public var formID: String
    /// The canonical path of the input it was uploaded for.
    public var field: String
    public var filename: String?
    public var contentType: String
    /// The size announced up front (tus `Upload-Length`); nil for a simple upload until it is finished.
    public var declaredSize: Int?
    /// The bytes durably received: the tus offset.
    public var received: Int
    /// The hex SHA-256 of the bytes, set when complete.
    public var sha256: String?
    public var isComplete: Bool
    public var storageKey: String
    public var clientAddress: String?
    public var createdAt: Date
    /// An upload still unbound after it is deleted.
    public var expiresAt: Date
    /// The submission it is bound to, once one is stored that names it.
    public var submissionID: String?

    public init(
        id: String, formID: String, field: String, filename: String?, contentType: String, declaredSize: Int?,
        received: Int, sha256: String?, isComplete: Bool, storageKey: String, clientAddress: String?, createdAt: Date,
        expiresAt: Date, submissionID: String? = nil
    ) {
        self.id = id
        self.formID = formID
        self.field = field
        self.filename = filename
        self.contentType = contentType
        self.declaredSize = declaredSize
        self.received = received
        self.sha256 = sha256
        self.isComplete = isComplete
        self.storageKey = storageKey
        self.clientAddress = clientAddress
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.submissionID = submissionID
    }
}

extension UploadRecord: StoredRecord {
    /// Read by position, in the order of ``UploadQueries/columns``.
    public init(row: Row) {
        self.init(
            id: row[0], formID: row[1], field: row[2], filename: row[3], contentType: row[4], declaredSize: row[5],
            received: row[6], sha256: row[7], isComplete: row[8], storageKey: row[9], clientAddress: row[10],
            createdAt: Date(storedMilliseconds: row[11]), expiresAt: Date(storedMilliseconds: row[12]),
            submissionID: row[13])
    }
}

extension [UploadRecord] {
    /// The records in the order of `ids` (each once), as ``UploadStore/uploads(ids:)`` answers them.
    package func ordered(by ids: [String]) -> [UploadRecord] {
        let byID = Dictionary(map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        return ids.compactMap { id in seen.insert(id).inserted ? byID[id] : nil }
    }
}

extension UploadRecord {
    /// What a refused reference of a new upload names: its form, or the submission it comes bound to.
    package var missingReference: String {
        "form \(formID)" + (submissionID.map { " or submission \($0)" } ?? "")
    }
}
