/// How to validate.
public struct ValidationOptions: Sendable {
    /// Longest value, in characters, before any rule runs; longer is a `maxLength` error.
    public var maxValueLength: Int = 10_000

    public init(maxValueLength: Int = 10_000) {
        self.maxValueLength = maxValueLength
    }
}

/// The outcome of validating a submission.
public struct ValidationResult: Sendable {
    /// Every error, in form order (unknown fields after the known ones of their level).
    public var errors: [FieldError]
    /// The values to store: typed, nested as the groups nest, hidden and empty inputs dropped.
    public var values: JSONValue
    /// Whether there are no errors.
    public var isValid: Bool { errors.isEmpty }
}

/// One invalid field: its key path, a stable code from the contract, and a message.
public struct FieldError: Sendable, Equatable {
    /// Key path, like `addresses[1].postcode`.
    public var field: String
    /// `required`, `pattern`, `email`, `phone`, `numerical`, `integer`, `decimal`, `decimalPlaces`,
    /// `minLength`, `maxLength`, `minValue`, `maxValue`, `option`, `date`, `boolean`, `state`, `type`,
    /// `repeat` or `unknown`.
    public var code: String
    /// Text for a person (the component's `messages` override the default).
    public var message: String

    /// Every code an error can carry (CONTRACT §2).
    public static let codes: Set<String> = [
        "required", "pattern", "email", "phone", "numerical", "integer", "decimal", "decimalPlaces",
        "minLength", "maxLength", "minValue", "maxValue", "option", "date", "boolean", "state", "type",
        "repeat", "unknown",
    ]

    public init(field: String, code: String, message: String) {
        self.field = field
        self.code = code
        self.message = message
    }
}
