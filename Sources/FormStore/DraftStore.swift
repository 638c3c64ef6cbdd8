import Foundation

/// Drafts: answers saved piece by piece, then submitted once (by ``SubmissionStore/insertSubmission(_:)``
/// with ``NewSubmission/draftID``, which closes the draft in the submission's transaction).
///
/// A draft's values may name uploads. Those the store can still keep (unbound, of the draft's form)
/// are tied to the draft and kept at least until the draft expires. An unbound upload the draft lets go
/// (its values no longer name it, its submission did not take it, it was deleted or swept) is set to
/// expire, so the upload sweeper removes it and its bytes.
public protocol DraftStore: Sendable {
    /// Stores a new draft and counts it as started on the day of its `createdAt` (see ``FormStatsStore``),
    /// in one transaction, and ties the uploads among `uploadIDs` to it.
    ///
    /// A draft with a `clientAddress` is also counted as started by that client in the clock hour of its
    /// `createdAt` (milliseconds / 3 600 000), in the same transaction and in one atomic statement, so
    /// that concurrent creates on any node never pass the limit. Deleting a draft does not give its start
    /// back. Throws ``StoreError/limitReached(_:)`` when the client already started `maxPerClientPerHour`
    /// drafts in that hour (a draft without a client address is not limited),
    /// ``StoreError/conflict(_:)`` for a taken id and ``StoreError/notFound(_:)`` for an unknown form
    /// version; nothing is stored then.
    func createDraft(_ draft: DraftRecord, uploadIDs: [String], maxPerClientPerHour: Int) async throws

    /// One draft by id, expired or not (the caller judges `expiresAt`).
    func draft(id: String) async throws -> DraftRecord?

    /// Replaces a draft's values when it is open and at `change.expectedRevision`: the revision goes up
    /// by one and `updatedAt` and `expiresAt` are set, the uploads the values name are tied to it, and
    /// its unbound uploads not among `change.uploadIDs` are let go, expiring at
    /// `change.releasedUploadsExpireAt` (or earlier, if they already did), all in one transaction.
    func updateDraft(_ change: DraftChange) async throws -> DraftUpdateOutcome

    /// Deletes a draft, open or submitted; returns whether there was one. Its unbound uploads expire now.
    func deleteDraft(id: String) async throws -> Bool

    /// Deletes up to `limit` drafts whose `expiresAt` is before `date`, oldest first, and returns how
    /// many were deleted. Their unbound uploads are let go expiring just before `date`, so that
    /// ``UploadStore/expiredUploads(before:limit:)`` with the same `date` (the same sweep pass) returns
    /// them. Also forgets the per-client starts of hours before the one preceding `date`'s.
    func deleteExpiredDrafts(before date: Date, limit: Int) async throws -> Int
}
