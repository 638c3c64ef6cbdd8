import FormStore
import Foundation

/// A draft of `formID`'s `version` at revision 1, created at `createdAt` (to the millisecond, so that it
/// reads back equal) by `clientAddress`, expiring `lifetime` seconds later.
public func newDraft(
    id: String = RandomID.make(prefix: "drf_"), formID: String = "signup", version: Int = 1,
    values: String = #"{"name":"Ana"}"#, clientAddress: String? = "192.0.2.1",
    createdAt: Date = Date(storedMilliseconds: Date().storedMilliseconds), lifetime: TimeInterval = 30 * 86_400
) -> DraftRecord {
    DraftRecord(
        id: id, formID: formID, formVersion: version, tokenHash: String(repeating: "5e", count: 32), revision: 1,
        values: values, clientAddress: clientAddress, createdAt: createdAt, updatedAt: createdAt,
        expiresAt: Date(storedMilliseconds: createdAt.storedMilliseconds + Int64(lifetime * 1000)))
}

/// ``newSubmission(id:formID:version:receivedAt:idempotencyKey:rawBody:values:uploadIDs:)`` submitted from `draftID`.
public func newSubmission(
    id: String = RandomID.make(prefix: "sub_"), idempotencyKey: String? = nil, uploadIDs: [String] = [], draftID: String
) -> NewSubmission {
    var submission = newSubmission(id: id, idempotencyKey: idempotencyKey, uploadIDs: uploadIDs)
    submission.draftID = draftID
    return submission
}
