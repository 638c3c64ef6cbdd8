import FormEngine

extension JSONValue {
    /// An object from members in the order given (response bodies keep a readable order).
    static func members(_ pairs: [(String, JSONValue)]) -> JSONValue {
        var object = JSONObject()
        for (key, value) in pairs { object[key] = value }
        return .object(object)
    }

    /// This object with `key` set to `value` (replacing an existing member in place).
    func withMember(_ key: String, _ value: JSONValue) -> JSONValue {
        guard case .object(var object) = self else { return self }
        object[key] = value
        return .object(object)
    }
}
