/// Why a submission body could not be read at all, before any field is validated (the server
/// answers 400).
public struct SubmissionError: Error, Sendable, Equatable {
    /// What kind of problem the body has.
    public enum Code: String, Sendable, CaseIterable {
        /// The body is not JSON; ``SubmissionError/offset`` says at which byte it breaks.
        case malformedJSON
        /// The body is JSON but not one of the three submission shapes.
        case invalidShape
        /// The body is past a ``SubmissionLimits`` limit.
        case tooLarge
    }

    /// What kind of problem the body has.
    public var code: Code
    /// What is wrong, for a person.
    public var message: String
    /// The byte offset where the JSON breaks, for ``Code/malformedJSON`` (and a nesting past the limit).
    public var offset: Int?

    /// An error of kind `code`, at byte `offset` when there is one.
    public init(code: Code, message: String, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
    }
}
