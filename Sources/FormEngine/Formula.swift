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
