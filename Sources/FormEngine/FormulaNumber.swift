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
        guard text.whole.count <= 30 else { return nil }
        // Up to 18 digits fit a UInt64 significand exactly: built from it, not parsed from text again.
        let digitCount = text.whole.count + text.fraction.count
        guard digitCount <= 18 else { return Decimal(string: text.text).flatMap(bounded) }
        var significand: UInt64 = 0
        for digit in text.whole { significand = significand * 10 + UInt64(digit &- UInt8(ascii: "0")) }
        for digit in text.fraction { significand = significand * 10 + UInt64(digit &- UInt8(ascii: "0")) }
        return bounded(Decimal(sign: text.negative ? .minus : .plus, exponent: -text.fraction.count, significand: Decimal(significand)))
    }

    /// A stored JSON number (a `Double`) read as its shortest text, so `0.1` is exactly 0.1. A whole
    /// number that a `Double` holds exactly is taken as it is, without writing it out.
    static func read(_ n: Double) -> Decimal? {
        if n == n.rounded(), n.magnitude < 9_007_199_254_740_992 { return bounded(Decimal(Int64(n))) }
        return DecimalText(n).flatMap(read)
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
