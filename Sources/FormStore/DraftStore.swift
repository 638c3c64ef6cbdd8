import Foundation

/// Drafts: answers saved piece by piece, then submitted once (by ``SubmissionStore/insertSubmission(_:)``
/// with ``NewSubmission/draftID``, which closes the draft in the submission's transaction).
///
/// A draft's values may name uploads. Those the store can still keep (unbound, of the draft's form)
/// are tied to the draft and kept at least until the draft expires; when the draft is deleted or swept
/// its unbound uploads are set to expire at once, so the upload sweeper removes them and their bytes.
public protocol DraftStore: Sendable {
    /// Stores a new draft and counts it as started on the day of its `createdAt` (see ``FormStatsStore``),
    /// in one transaction, and ties the uploads among `uploadIDs` to it. Throws ``StoreError/conflict(_:)``
    /// for a taken id and ``StoreError/notFound(_:)`` for an unknown form version.
    func createDraft(_ draft: DraftRecord, uploadIDs: [String]) async throws

    /// One draft by id, expired or not (the caller judges `expiresAt`).
    func draft(id: String) async throws -> DraftRecord?

    /// Replaces a draft's values when it is open and at `change.expectedRevision`: the revision goes up
    /// by one and `updatedAt` and `expiresAt` are set, and the uploads the values name are tied to it.
    func updateDraft(_ change: DraftChange) async throws -> DraftUpdateOutcome

    /// Deletes a draft, open or submitted; returns whether there was one. Its unbound uploads expire now.
    func deleteDraft(id: String) async throws -> Bool

    /// Deletes up to `limit` drafts whose `expiresAt` is before `date`, oldest first, with what
    /// ``deleteDraft(id:)`` does to their uploads; returns how many were deleted.
    func deleteExpiredDrafts(before date: Date, limit: Int) async throws -> Int

    /// How many drafts `clientAddress` created at or after `since` (the per-client creation limit).
    func draftCount(clientAddress: String, since: Date) async throws -> Int
}
