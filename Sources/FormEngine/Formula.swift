import Foundation

/// A parsed `formula`: the syntax tree, before its key paths are resolved against the form.
indirect enum FormulaSyntax: Sendable {
    case number(Decimal)
    case text(String)
    /// A key path of another input (`price`, `address.line1`), at `position` (1-based characters).
    case path([String], position: Int)
    /// A repeat's column (`items[].total`): the path to the repeat, then the path inside an item.
    case column(repeat: [String], item: [String], position: Int)
    case negate(FormulaSyntax, position: Int)
    /// A comparison: they do not chain.
    case binary(FormulaOperator, FormulaSyntax, FormulaSyntax, position: Int)
    /// Operators of one precedence level applied left to right (`a - b + c`), kept flat so that a
    /// long chain is walked by a loop, not by recursion as deep as the chain is long.
    case chain(FormulaSyntax, [(op: FormulaOperator, operand: FormulaSyntax, position: Int)])
    case call(FormulaFunction, [FormulaSyntax], position: Int)
}

/// The binary operators, from the loosest binding to the tightest: comparisons, `&`, `+ -`, `* /`.
enum FormulaOperator: String, Sendable {
    case equal = "=", notEqual = "<>", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case join = "&"
    case add = "+", subtract = "-"
    case multiply = "*", divide = "/"

    var isComparison: Bool {
        switch self {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: true
        default: false
        }
    }
}

/// The functions a formula may call.
enum FormulaFunction: String, Sendable, CaseIterable {
    case sum, min, max, round, `if`, concat
}

/// What a formula's expression gives: a number, text, a truth value (only as `if`'s condition),
/// or a repeat's column of numbers (only inside `sum`, `min`, `max`).
enum FormulaType: Sendable, Equatable {
    case number, text, boolean, column

    var name: String {
        switch self {
        case .number: "a number"
        case .text: "text"
        case .boolean: "a comparison"
        case .column: "a repeat's column"
        }
    }
}

/// A value while a formula is evaluated. `empty` stands for an unanswered (or hidden, or invalid)
/// input and for what cannot be computed (a division by zero, a result past the bounds).
enum FormulaValue: Sendable, Equatable {
    case number(Decimal)
    case text(String)
    case boolean(Bool)
    case empty
}

/// The numbers formulas compute with: Foundation's `Decimal`, exact for decimal fractions
/// (`0.1 + 0.2` is `0.3`), 38 significant digits, bounded in magnitude.
enum FormulaNumber {
    /// Numbers are kept below 10^30 in magnitude; past it an operand or a result is empty.
    static let limit = Decimal(sign: .plus, exponent: 30, significand: 1)

    /// The number if it is within the bounds, otherwise nil (empty).
    static func bounded(_ n: Decimal) -> Decimal? {
        n.isNaN || !n.isFinite || n.magnitude >= limit ? nil : n
    }

    /// Exact decimal text (`-12.50`, as `DecimalText` reads it) as a number within the bounds.
    static func read(_ text: DecimalText) -> Decimal? {
        text.whole.count <= 30 ? Decimal(string: text.text).flatMap(bounded) : nil
    }

    /// A stored JSON number (a `Double`) read as its shortest text, so `0.1` is exactly 0.1.
    static func read(_ n: Double) -> Decimal? {
        DecimalText(n).flatMap(read)
    }

    /// The canonical text of a number: plain digits, no exponent, no trailing zeros (`12.5`, `-3`).
    static func text(_ n: Decimal) -> String {
        DecimalText(n.description)?.text ?? n.description
    }

    /// Rounds to `places` digits after the point, halves away from zero (`2.5` → `3`, `-2.5` → `-3`).
    static func round(_ n: Decimal, places: Int) -> Decimal {
        var value = n
        var result = Decimal()
        NSDecimalRound(&result, &value, places, .plain)
        return result
    }
}
