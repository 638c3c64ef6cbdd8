/// The input a condition reads: its position in form order, which is also its slot in the
/// validation's table of values accepted so far.
struct FieldReference: Sendable {
    var slot: Int
}

/// A compiled `visibleWhen`.
indirect enum Condition: Sendable {
    case equals(FieldReference, JSONValue)
    case notEquals(FieldReference, JSONValue)
    case oneOf(FieldReference, [JSONValue])
    case notEmpty(FieldReference, Bool)
    case all([Condition])
    case any([Condition])

    /// Evaluates against the normalized values accepted so far, by slot (`.null` when none).
    func evaluate(_ slots: [JSONValue]) -> Bool {
        switch self {
        case .equals(let ref, let v): return Self.matches(slots[ref.slot], v)
        case .notEquals(let ref, let v): return !Self.matches(slots[ref.slot], v)
        case .oneOf(let ref, let vs):
            let value = slots[ref.slot]
            return vs.contains { Self.matches(value, $0) }
        case .notEmpty(let ref, let wanted):
            return Self.isEmpty(slots[ref.slot]) != wanted
        case .all(let cs): return cs.allSatisfy { $0.evaluate(slots) }
        case .any(let cs): return cs.contains { $0.evaluate(slots) }
        }
    }

    /// Every slot the condition reads.
    var slots: [Int] {
        switch self {
        case .equals(let ref, _), .notEquals(let ref, _), .oneOf(let ref, _), .notEmpty(let ref, _): [ref.slot]
        case .all(let cs), .any(let cs): cs.flatMap(\.slots)
        }
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

    /// A multiple select's choices (an array) match a single value when they include it, so
    /// `{"equals": "a"}` means "a is chosen"; an array operand compares with the whole choice, in any order.
    private static func matches(_ value: JSONValue, _ expected: JSONValue) -> Bool {
        if case .array(let chosen) = value {
            guard case .array(let wanted) = expected else { return chosen.contains { same($0, expected) } }
            // The same options chosen, in whatever order: a multiple select's choices are a set.
            return chosen.count == wanted.count
                && wanted.allSatisfy { w in chosen.contains { same($0, w) } }
                && chosen.allSatisfy { c in wanted.contains { same(c, $0) } }
        }
        return same(value, expected)
    }

    /// Text read as a number only when written as digits, as in JSON (`-12.5`, `1e3`; leading zeros
    /// too, as typed into a numerical field): Swift's `Double()` also reads `0x5`, `+5`, `inf` and
    /// `nan`, which are not a number's text.
    private static func number(_ s: String) -> Double? {
        var state = 0  // 0 start, 1 sign, 2 int digits, 3 point, 4 fraction, 5 e, 6 e sign, 7 e digits
        for b in s.utf8 {
            let digit = b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")
            switch (state, b) {
            case (0, UInt8(ascii: "-")): state = 1
            case (0, _) where digit, (1, _) where digit, (2, _) where digit: state = 2
            case (2, UInt8(ascii: ".")): state = 3
            case (3, _) where digit, (4, _) where digit: state = 4
            case (2, UInt8(ascii: "e")), (2, UInt8(ascii: "E")), (4, UInt8(ascii: "e")), (4, UInt8(ascii: "E")): state = 5
            case (5, UInt8(ascii: "+")), (5, UInt8(ascii: "-")): state = 6
            case (5, _) where digit, (6, _) where digit, (7, _) where digit: state = 7
            default: return nil
            }
        }
        return state == 2 || state == 4 || state == 7 ? Double(s) : nil
    }

    /// Equality where an absent value equals "" and a stored number equals its text.
    private static func same(_ value: JSONValue, _ expected: JSONValue) -> Bool {
        if value == expected { return true }
        switch (value, expected) {
        case (.null, .string("")), (.string(""), .null): return true
        case (.number(let n), .string(let s)), (.string(let s), .number(let n)): return number(s) == n
        case (.bool(let b), .string(let s)): return s == (b ? "true" : "false")
        default: return false
        }
    }
}
