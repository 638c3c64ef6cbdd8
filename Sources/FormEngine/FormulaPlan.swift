import Foundation

/// A container on the way from the top of the values to a computed input: a group's key, and
/// whether it repeats (its value is then an array of item objects).
struct ContainerStep: Sendable {
    var key: String
    var repeats: Bool
}

/// How a formula reads a stored value: `depth` is the enclosing object it starts from (0 the top of
/// the values, 1 the first container around the computed input, ...), `keys` the path from there.
struct FormulaRead: Sendable {
    enum Kind: Sendable {
        /// An `integer`, `decimal` or `count`: a JSON number.
        case number
        /// A `numerical`: digits as text, read as a number.
        case digits
        /// Text of any other text type, a date, a select without option values.
        case text
        /// A select whose options carry numeric `value`s: the chosen option's value.
        case option([String: Decimal])
        /// A switch.
        case boolean
    }

    var depth: Int
    var keys: [String]
    var kind: Kind
}

/// A formula with its key paths resolved: what the evaluator runs.
indirect enum FormulaExpression: Sendable {
    case constant(FormulaValue)
    case read(FormulaRead)
    /// Each item of the repeat at `toRepeat` (from `depth`), read at `read.keys` inside the item.
    case column(depth: Int, toRepeat: [String], read: FormulaRead)
    case negate(FormulaExpression)
    case binary(FormulaOperator, FormulaExpression, FormulaExpression)
    case chain(FormulaExpression, [(op: FormulaOperator, operand: FormulaExpression)])
    case aggregate(FormulaFunction, [FormulaExpression])
    case round(FormulaExpression, places: Int)
    case choose(FormulaExpression, FormulaExpression, FormulaExpression)
    case concat([FormulaExpression])
}

/// One computed input: where it stands, its rules (the computed value is checked by them) and its
/// compiled formula.
struct FormulaSite: Sendable {
    var containers: [ContainerStep]
    var rule: InputRule
    var expression: FormulaExpression
}

/// Every computed input of a form version, compiled once when the definition is decoded, with the
/// order they are computed in (a formula after the computed inputs it reads).
struct FormulaPlan: Sendable {
    /// In definition order: a computed input's ``InputSpec/formulaIndex`` is its place here.
    var sites: [FormulaSite]
    /// The indexes into ``sites`` in the order they are computed.
    var order: [Int]
}
