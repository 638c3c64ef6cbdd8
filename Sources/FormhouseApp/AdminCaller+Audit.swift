import FormEngine
import FormStore

extension AdminCaller {
    /// What the audit log records of this caller's write: its token's name and route, the action and
    /// its target, and `detail` (facts, never values a person entered) as a JSON object, keys sorted.
    func audit(_ action: String, target: String, detail: [String: JSONValue] = [:]) -> AuditNote {
        var object = JSONObject()
        for (key, value) in detail.sorted(by: { $0.key < $1.key }) { object[key] = value }
        let text = object.isEmpty ? nil : String(decoding: JSONValue.object(object).serialized(), as: UTF8.self)
        return AuditNote(actor: name, action: action, route: route, target: target, detail: text)
    }
}
