import FormStore
import Foundation

/// Saves a form `id` with one version.
@discardableResult
public func makeForm(_ store: any FormVersionStore, id: String = "signup") async throws -> SavedVersion {
    try await store.saveFormVersion(
        formID: id, definition: #"{"id":"\#(id)","components":[]}"#, title: "Form \(id)", contentHash: "hash-\(id)-1")
}

/// A submission to `formID`'s `version`, naming `uploadIDs`; its body hash is derived from the key, its
/// webhook payload names its id.
public func newSubmission(
    id: String = RandomID.make(prefix: "sub_"), formID: String = "signup", version: Int = 1,
    receivedAt: Date = Date(), idempotencyKey: String? = nil, rawBody: [UInt8] = Array(#"{"values":{}}"#.utf8),
    values: String = #"{"name":"Ana"}"#, uploadIDs: [String] = []
) -> NewSubmission {
    let payload = Array(#"{"type":"submission.accepted","data":{"id":"\#(id)"}}"#.utf8)
    return NewSubmission(
        SubmissionRecord(
            id: id, formID: formID, formVersion: version, receivedAt: receivedAt, values: values,
            rawBody: rawBody, idempotencyKey: idempotencyKey, bodyHash: idempotencyKey.map { "hash-\($0)" },
            clientAddress: "127.0.0.1"),
        uploadIDs: uploadIDs, webhookPayload: { payload })
}
