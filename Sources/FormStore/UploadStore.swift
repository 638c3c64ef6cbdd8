import Foundation

/// The records of uploaded files, from their first byte until they are bound to a submission (by
/// ``SubmissionStore/insertSubmission(_:)``, in the submission's transaction) or expire unbound.
public protocol UploadStore: Sendable {
    /// Stores a new upload as given. Throws ``StoreError/conflict(_:)`` for a taken id and
    /// ``StoreError/notFound(_:)`` for an unknown form (or submission, for one given bound).
    func createUpload(_ upload: UploadRecord) async throws

    /// One upload by id.
    func upload(id: String) async throws -> UploadRecord?

    /// The uploads among `ids` that exist, each once, in the order of `ids`.
    func uploads(ids: [String]) async throws -> [UploadRecord]

    /// The uploads bound to a submission, oldest first.
    func uploads(submissionID: String) async throws -> [UploadRecord]

    /// Compare-and-set of a tus offset: succeeds only when the stored `received` is `from`; returns whether it did.
    /// A complete upload takes no more bytes, so it is refused too.
    func recordProgress(id: String, from: Int, to: Int) async throws -> Bool

    /// Marks an upload complete with its final size (its received and declared size), hash and
    /// (sniffed) content type. Throws ``StoreError/notFound(_:)`` for an unknown upload and
    /// ``StoreError/conflict(_:)`` for one complete already.
    func completeUpload(id: String, size: Int, sha256: String, contentType: String) async throws

    /// Deletes an upload record that is not bound; returns whether one was deleted.
    func deleteUnboundUpload(id: String) async throws -> Bool

    /// Unbound uploads whose `expiresAt` is before `date`, oldest first, at most `limit` (for the sweeper).
    func expiredUploads(before date: Date, limit: Int) async throws -> [UploadRecord]

    /// How many uploads created at or after `since` are not complete: all of them when `clientAddress`
    /// is nil, else those of that client address (the in-progress caps).
    func incompleteUploadCount(clientAddress: String?, since: Date) async throws -> Int
}
