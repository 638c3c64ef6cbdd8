import FormEngine
import FormStore

extension AdminCaller {
    /// What the audit log records of this caller's write: its token's name and route, the action and
    /// its target, and `detail` (facts, never values a person entered) as compact JSON with the keys of
    /// every object sorted, so that anyone checking the chain can write the same text again.
    func audit(_ action: String, target: String, detail: [String: JSONValue] = [:]) -> AuditNote {
        var object = JSONObject()
        for (key, value) in detail { object[key] = value }
        let text = object.isEmpty ? nil : String(decoding: JSONValue.object(object).sortingKeys().serialized(), as: UTF8.self)
        return AuditNote(actor: name, action: action, route: route, target: target, detail: text)
    }
}
