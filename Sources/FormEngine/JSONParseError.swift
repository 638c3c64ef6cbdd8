/// Why bytes are not acceptable JSON, and where (a byte offset into the input).
public struct JSONParseError: Error, Sendable, Equatable {
    /// Byte offset of the problem.
    public var offset: Int
    /// What is wrong, for a person.
    public var message: String
    /// Whether the JSON is broken or only too deep.
    public var code: Code

    /// What kind of problem the bytes have.
    public enum Code: String, Sendable {
        /// Not JSON: broken syntax, invalid UTF-8 or a repeated key.
        case malformedJSON
        /// Well-formed as far as read, but nested deeper than the parser's limit: refused for its
        /// size, which callers report apart from broken syntax.
        case tooDeep
    }

    /// An error at byte `offset`.
    public init(offset: Int, message: String, code: Code = .malformedJSON) {
        self.offset = offset
        self.message = message
        self.code = code
    }
}
