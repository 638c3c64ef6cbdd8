extension JSONValue {
    /// This value with `patch` applied as a JSON merge patch (RFC 7396): an object patch sets each
    /// of its members, recursively, and removes those it sets to `null`; any other patch replaces
    /// the value. Members keep their order, new ones follow. A draft's `PATCH` applies this to its
    /// values, so an app offline can apply the same patch to its own copy and agree with the server.
    ///
    /// Linear in the sizes of both: neither is searched member by member.
    public func mergePatched(with patch: JSONValue) -> JSONValue {
        guard case .object(let changes) = patch else { return patch }
        let base = objectValue ?? JSONObject()
        var change: [String: JSONValue] = [:]
        change.reserveCapacity(changes.count)
        for member in changes.members { change[member.key] = member.value }
        var result = JSONObject(reservingCapacity: base.count + changes.count)
        var kept = Set<String>()
        kept.reserveCapacity(base.count)
        for member in base.members {
            kept.insert(member.key)
            guard let value = change[member.key] else {
                result.append(member.key, member.value)
                continue
            }
            if value != .null { result.append(member.key, member.value.mergePatched(with: value)) }
        }
        for member in changes.members where member.value != .null && !kept.contains(member.key) {
            kept.insert(member.key)
            result.append(member.key, JSONValue.null.mergePatched(with: change[member.key] ?? member.value))
        }
        return .object(result)
    }
}
