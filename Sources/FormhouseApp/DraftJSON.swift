import FormEngine
import FormStore

/// A draft as its routes answer it: the values as saved, the errors of the inputs answered so far,
/// and the token only in the answer that created it.
struct DraftJSON: Encodable {
    var id: String
    /// Only when the draft is created: it is never shown again.
    var token: String?
    var formId: String
    var formVersion: Int
    var revision: Int
    var values: JSONValue
    var listed: ProblemExtra
    var createdAt: String
    var updatedAt: String
    var expiresAt: String
    @NullWhenNil var submissionId: String?

    init(_ draft: DraftService.Draft) {
        let record = draft.record
        id = record.id
        token = draft.token
        formId = record.formID
        formVersion = record.formVersion
        revision = record.revision
        values = .object(draft.values)
        listed = APIProblem.listedErrors(draft.errors)
        createdAt = Timestamp.rfc3339(record.createdAt)
        updatedAt = Timestamp.rfc3339(record.updatedAt)
        expiresAt = Timestamp.rfc3339(record.expiresAt)
        submissionId = record.submissionID
    }

    private enum CodingKeys: String, CodingKey {
        case id, token, formId, formVersion, revision, values, createdAt, updatedAt, expiresAt, submissionId
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(token, forKey: .token)
        try container.encode(formId, forKey: .formId)
        try container.encode(formVersion, forKey: .formVersion)
        try container.encode(revision, forKey: .revision)
        try container.encode(values, forKey: .values)
        // `errors` (and `errorCount`, `truncated` when cut) as a 422 lists them.
        try listed.encode(to: encoder)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(_submissionId, forKey: .submissionId)
    }
}
