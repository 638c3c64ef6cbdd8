/// Where a condition's `field` lives: the scope (0 = form, n = n-th enclosing group) and the path
/// from there (through non-repeating groups).
struct FieldReference: Sendable {
    var scope: Int
    var path: [String]
}

/// A compiled `visibleWhen`.
indirect enum Condition: Sendable {
    case equals(FieldReference, JSONValue)
    case notEquals(FieldReference, JSONValue)
    case oneOf(FieldReference, [JSONValue])
    case notEmpty(FieldReference, Bool)
    case all([Condition])
    case any([Condition])

    /// Evaluates against the normalized values accepted so far (`scopes[0]` is the form level).
    func evaluate(_ scopes: [JSONObject]) -> Bool {
        switch self {
        case .equals(let ref, let v): return Self.same(Self.lookup(ref, scopes), v)
        case .notEquals(let ref, let v): return !Self.same(Self.lookup(ref, scopes), v)
        case .oneOf(let ref, let vs):
            let value = Self.lookup(ref, scopes)
            return vs.contains { Self.same(value, $0) }
        case .notEmpty(let ref, let wanted):
            return Self.isEmpty(Self.lookup(ref, scopes)) != wanted
        case .all(let cs): return cs.allSatisfy { $0.evaluate(scopes) }
        case .any(let cs): return cs.contains { $0.evaluate(scopes) }
        }
    }

    private static func lookup(_ ref: FieldReference, _ scopes: [JSONObject]) -> JSONValue {
        guard ref.scope < scopes.count else { return .null }
        var current = JSONValue.object(scopes[ref.scope])
        for key in ref.path {
            guard let next = current[key] else { return .null }
            current = next
        }
        return current
    }

    static func isEmpty(_ v: JSONValue) -> Bool {
        switch v {
        case .null: true
        case .string(let s): s.isEmpty
        case .array(let a): a.isEmpty
        case .object(let o): o.isEmpty
        default: false
        }
    }

    /// Equality where an absent value equals "" and a stored number equals its text.
    private static func same(_ value: JSONValue, _ expected: JSONValue) -> Bool {
        if value == expected { return true }
        switch (value, expected) {
        case (.null, .string("")), (.string(""), .null): return true
        case (.number(let n), .string(let s)): return Double(s) == n
        case (.string(let s), .number(let n)): return Double(s) == n
        case (.bool(let b), .string(let s)): return s == (b ? "true" : "false")
        default: return false
        }
    }
}
