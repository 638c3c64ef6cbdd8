import FormEngine
import FormStore

/// One entry of `GET /v1/admin/audit`, every field the chain's hash covers (so that a reader can check
/// it) with the time as RFC 3339 and `detail` as the object it is.
struct AuditEntryJSON: Encodable {
    let sequence: Int64
    let at: String
    let actor: String
    let action: String
    let route: String
    let target: String
    @NullWhenNil var versionBefore: Int?
    @NullWhenNil var versionAfter: Int?
    @NullWhenNil var detail: JSONValue?
    let previousHash: String
    let hash: String

    init(_ entry: AuditEntry) {
        sequence = entry.sequence
        at = Timestamp.rfc3339(entry.at)
        actor = entry.actor
        action = entry.action
        route = entry.route
        target = entry.target
        versionBefore = entry.versionBefore
        versionAfter = entry.versionAfter
        detail = entry.detail.flatMap { try? JSONValue(parsing: Array($0.utf8)) }
        previousHash = entry.previousHash
        hash = entry.hash
    }
}
