import Foundation

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
