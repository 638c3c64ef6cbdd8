/// The outcome of ``FormDefinition/validate(_:options:)``.
public struct ValidationResult: Sendable {
    /// Every error, in form order (unknown fields after the known ones of their level).
    public var errors: [FieldError]
    /// The accepted values as the server stores them: typed (numbers as numbers, a state as its
    /// code), nested as the groups nest, without hidden or empty inputs.
    public var values: JSONValue
    /// Whether there are no errors.
    public var isValid: Bool { errors.isEmpty }
}
