/// The parsed form of a pattern, before it is compiled to an automaton.
indirect enum Syntax {
    case empty
    case set(ScalarClass)
    case concatenation([Syntax])
    case alternation([Syntax])
    /// `max == nil` means unbounded. `offset` is the quantifier's position, for size-limit errors.
    case repetition(Syntax, min: Int, max: Int?, offset: Int)
    case assertion(Assertion)
}

/// A zero-width condition on the position between two scalars.
enum Assertion: UInt8, Sendable {
    /// `^`, `\A`, `\G`: before the first scalar.
    case start
    /// `\z`: after the last scalar.
    case end
    /// `$`, `\Z`: after the last scalar, or before a line terminator that ends the input (ICU does
    /// not count the position inside a final `\r\n`).
    case endBeforeFinalTerminator
    /// `\b`: exactly one side is a word scalar.
    case wordBoundary
    /// `\B`: both sides are word scalars, or neither is.
    case notWordBoundary
}
