import FormEngine
import FormStore

/// A stored submission as the admin API shows it: in lists and exports without how it was sent,
/// alone with its `idempotencyKey` and `clientAddress` where it has them; its values as a
/// ``SubmissionValuesView`` shows them.
struct SubmissionJSON: Encodable {
    var id: String
    var formId: String
    var formVersion: Int
    var receivedAt: String
    var values: JSONValue
    var idempotencyKey: String?
    var clientAddress: String?

    init(_ record: SubmissionRecord, values: JSONValue, withRequestDetails: Bool = false) {
        id = record.id
        formId = record.formID
        formVersion = record.formVersion
        receivedAt = Timestamp.rfc3339(record.receivedAt)
        self.values = values
        if withRequestDetails {
            idempotencyKey = record.idempotencyKey
            clientAddress = record.clientAddress
        }
    }

    /// The stored values, parsed (sensitive ones still sealed).
    static func values(of record: SubmissionRecord) -> JSONValue {
        (try? JSONValue(parsing: Array(record.values.utf8))) ?? .null
    }
}
