import FormEngine

extension JSONValue {
    /// The same value with every object's members in key order (arrays keep theirs), for hashing
    /// content whose member order carries no meaning.
    func sortingKeys() -> JSONValue {
        switch self {
        case .object(let object):
            var sorted = JSONObject()
            for member in object.members.sorted(by: { $0.key < $1.key }) { sorted[member.key] = member.value.sortingKeys() }
            return .object(sorted)
        case .array(let items): return .array(items.map { $0.sortingKeys() })
        default: return self
        }
    }

    /// This object without `key`.
    func withoutMember(_ key: String) -> JSONValue {
        guard case .object(var object) = self else { return self }
        object[key] = nil
        return .object(object)
    }

    /// This object with `key` set to `value` (replacing an existing member in place).
    func withMember(_ key: String, _ value: JSONValue) -> JSONValue {
        guard case .object(var object) = self else { return self }
        object[key] = value
        return .object(object)
    }
}
