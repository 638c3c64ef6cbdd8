/// Why a pattern could not be compiled: a syntax error, an unsupported feature, or a size limit.
public struct PatternError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it is; the raw values are stable and can be used as error codes.
    public enum Kind: String, Sendable {
        /// The text is not a valid pattern (ICU rejects it too).
        case syntax = "regex.syntax"
        /// Valid ICU syntax that FormRegex does not support, such as lookahead or backreferences.
        case unsupported = "regex.unsupported"
        /// Over a size limit: length, nesting, repetition count or automaton size.
        case limit = "regex.limit"
    }

    /// Position in the pattern, in characters, where the problem is.
    public var offset: Int
    /// A sentence a person can act on.
    public var message: String
    /// What kind of problem it is.
    public var kind: Kind

    /// Creates an error at `offset` (in characters) with `message`.
    public init(offset: Int, message: String, kind: Kind = .syntax) {
        self.offset = offset
        self.message = message
        self.kind = kind
    }

    /// The kind's code, the offset and the message: `regex.syntax at offset 3: ...`.
    public var description: String {
        "\(kind.rawValue) at offset \(offset): \(message)"
    }
}
