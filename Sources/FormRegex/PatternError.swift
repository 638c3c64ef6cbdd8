/// Why a pattern could not be compiled: a syntax error, an unsupported feature, or a size limit.
public struct PatternError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Position in the pattern, in characters, where the problem is.
    public var offset: Int
    /// A sentence a person can act on.
    public var message: String

    /// Creates an error at `offset` (in characters) with `message`.
    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    public var description: String {
        "at offset \(offset): \(message)"
    }
}
