import Foundation

/// Evaluates compiled formulas against the stored values. `steps` counts the nodes visited and the
/// column items read, so tests can check that the work grows linearly with the submission.
struct FormulaEvaluator {
    var steps = 0

    /// The value of `expression` for the instance whose enclosing objects are `chain` (the top of
    /// the values first, the innermost container last).
    mutating func evaluate(_ expression: FormulaExpression, _ chain: [JSONObject]) -> FormulaValue {
        steps += 1
        switch expression {
        case .constant(let value):
            return value
        case .read(let read):
            return Self.value(at: read.keys[...], in: chain[read.depth], as: read.kind)
        case .column:
            return .empty
        case .negate(let inner):
            guard case .number(let n) = evaluate(inner, chain) else { return .empty }
            return .number(-n)
        case .binary(let op, let left, let right):
            let l = evaluate(left, chain)
            let r = evaluate(right, chain)
            return Self.apply(op, l, r)
        case .chain(let first, let links):
            var value = evaluate(first, chain)
            for link in links { value = Self.apply(link.op, value, evaluate(link.operand, chain)) }
            return value
        case .aggregate(let function, let arguments):
            var numbers: [Decimal] = []
            for argument in arguments {
                if case .column(let depth, let toRepeat, let read) = argument {
                    forEachItem(of: toRepeat[...], in: chain[depth]) { item in
                        if case .number(let n) = Self.value(at: read.keys[...], in: item, as: read.kind) { numbers.append(n) }
                    }
                } else if case .number(let n) = evaluate(argument, chain) {
                    numbers.append(n)
                }
            }
            // Empties are skipped: a sum of nothing is 0, a min or max of nothing is empty.
            switch function {
            case .sum: return Self.number(numbers.reduce(Decimal(0), +))
            case .min: return numbers.min().map { .number($0) } ?? .empty
            default: return numbers.max().map { .number($0) } ?? .empty
            }
        case .round(let inner, let places):
            guard case .number(let n) = evaluate(inner, chain) else { return .empty }
            return .number(FormulaNumber.round(n, places: places))
        case .choose(let condition, let then, let otherwise):
            guard case .boolean(let b) = evaluate(condition, chain) else { return .empty }
            return evaluate(b ? then : otherwise, chain)
        case .concat(let arguments):
            var out = ""
            for argument in arguments {
                guard let text = Self.text(evaluate(argument, chain)) else { return .empty }
                out += text
            }
            return .text(out)
        }
    }

    /// Visits each item object of the repeat at `keys` under `object` (sections are transparent in
    /// the values, so only group keys lead there).
    private mutating func forEachItem(of keys: ArraySlice<String>, in object: JSONObject, _ body: (JSONObject) -> Void) {
        guard let first = keys.first, let value = object[first] else { return }
        if keys.count > 1 {
            if case .object(let inner) = value { forEachItem(of: keys.dropFirst(), in: inner, body) }
            return
        }
        guard case .array(let items) = value else { return }
        for case .object(let item) in items {
            steps += 1
            body(item)
        }
    }

    static func value(at keys: ArraySlice<String>, in object: JSONObject, as kind: FormulaRead.Kind) -> FormulaValue {
        guard let first = keys.first, let value = object[first] else { return .empty }
        if keys.count > 1 {
            guard case .object(let inner) = value else { return .empty }
            return Self.value(at: keys.dropFirst(), in: inner, as: kind)
        }
        switch (kind, value) {
        case (.number, .number(let n)): return FormulaNumber.read(n).map { .number($0) } ?? .empty
        case (.digits, .string(let s)): return DecimalText(s).flatMap(FormulaNumber.read).map { .number($0) } ?? .empty
        case (.text, .string(let s)) where !s.isEmpty: return .text(s)
        case (.option(let values), .string(let id)): return values[id].map { .number($0) } ?? .empty
        case (.boolean, .bool(let b)): return .boolean(b)
        default: return .empty
        }
    }

    private static func number(_ n: Decimal) -> FormulaValue {
        FormulaNumber.bounded(n).map { .number($0) } ?? .empty
    }

    /// Text for `&` and `concat`: numbers in their canonical form; nil for an empty operand.
    static func text(_ value: FormulaValue) -> String? {
        switch value {
        case .number(let n): FormulaNumber.text(n)
        case .text(let s): s
        case .boolean(let b): b ? "true" : "false"
        case .empty: nil
        }
    }

    private static func apply(_ op: FormulaOperator, _ l: FormulaValue, _ r: FormulaValue) -> FormulaValue {
        if l == .empty || r == .empty { return .empty }
        switch (op, l, r) {
        case (.join, _, _):
            guard let a = text(l), let b = text(r) else { return .empty }
            return .text(a + b)
        case (.add, .number(let a), .number(let b)): return number(a + b)
        case (.subtract, .number(let a), .number(let b)): return number(a - b)
        case (.multiply, .number(let a), .number(let b)): return number(a * b)
        case (.divide, .number(let a), .number(let b)): return b == 0 ? .empty : number(a / b)
        case (.equal, _, _): return .boolean(l == r)
        case (.notEqual, _, _): return .boolean(l != r)
        case (.less, _, _), (.lessOrEqual, _, _), (.greater, _, _), (.greaterOrEqual, _, _):
            guard let less = isLess(l, r), let more = isLess(r, l) else { return .empty }
            switch op {
            case .less: return .boolean(less)
            case .lessOrEqual: return .boolean(!more)
            case .greater: return .boolean(more)
            default: return .boolean(!less)
            }
        default: return .empty
        }
    }

    private static func isLess(_ l: FormulaValue, _ r: FormulaValue) -> Bool? {
        switch (l, r) {
        case (.number(let a), .number(let b)): a < b
        case (.text(let a), .text(let b)): a < b
        default: nil
        }
    }
}
