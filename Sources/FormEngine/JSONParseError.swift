/// Why bytes are not acceptable JSON, and where (a byte offset into the input).
public struct JSONParseError: Error, Sendable, Equatable {
    /// Byte offset of the problem.
    public var offset: Int
    /// What is wrong, for a person.
    public var message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }
}
