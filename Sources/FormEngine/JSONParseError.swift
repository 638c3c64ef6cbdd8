/// Why bytes are not acceptable JSON, and where (a byte offset into the input).
public struct JSONParseError: Error, Sendable, Equatable {
    /// Byte offset of the problem.
    public var offset: Int
    /// What is wrong, for a person.
    public var message: String
    /// The JSON nests deeper than the parser's limit: well-formed as far as read, but refused for its
    /// size, which callers report apart from broken syntax.
    public var isDepthLimit: Bool

    /// An error at byte `offset`.
    public init(offset: Int, message: String, isDepthLimit: Bool = false) {
        self.offset = offset
        self.message = message
        self.isDepthLimit = isDepthLimit
    }
}
