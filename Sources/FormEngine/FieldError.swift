/// One invalid field: its key path, a stable code clients can branch on, and a message to show next
/// to the input.
public struct FieldError: Sendable, Equatable {
    /// Key path, like `addresses[1].postcode`.
    public var field: String
    /// Which rule the value broke.
    public var code: Code
    /// Text for a person (the component's `messages` override the default).
    public var message: String

    /// Which rule a value broke (each type's rules are listed in docs/engine.md). The raw value is the
    /// code sent to clients, and the key a component's `messages` uses to replace the default message.
    public enum Code: String, Sendable, CaseIterable {
        /// A required input has no answer, or a required switch is off.
        case required
        /// Text does not match the input's `regex`.
        case pattern
        /// Not an e-mail address.
        case email
        /// Not a phone number of the input's kind.
        case phone
        /// A `numerical` input holds something other than digits.
        case numerical
        /// Not a whole number, or one too large to store exactly.
        case integer
        /// Not a number, or one with more digits than are kept.
        case decimal
        /// More digits after the decimal point than `maxDecimalPlaces`.
        case decimalPlaces
        /// Shorter than `minLength` characters.
        case minLength
        /// Longer than `maxLength` characters, or than ``ValidationOptions/maxValueLength``.
        case maxLength
        /// Below `minValue`, or a date before `minDate`.
        case minValue
        /// Above `maxValue`, or a date after `maxDate`.
        case maxValue
        /// Not one of a select's options.
        case option
        /// Not a date written `YYYY-MM-DD`.
        case date
        /// A switch's answer is not true or false.
        case boolean
        /// Not a US state's name or two-letter code.
        case state
        /// An upload id that cannot be used: unknown, unfinished, already in a submission, made for
        /// another form or input, or named twice in the submission.
        case file
        /// An upload whose media type the file input's `accept` does not take.
        case fileType
        /// An upload larger than the file input's `maxSize`.
        case maxSize
        /// More uploads than the file input's `maxFiles`.
        case maxFiles
        /// A value of the wrong JSON type for its input or group.
        case type
        /// A repeating group has fewer or more items than its bounds.
        case `repeat`
        /// A key the form has no field for.
        case unknown
    }

    /// An error for the field at key path `field`.
    public init(field: String, code: Code, message: String) {
        self.field = field
        self.code = code
        self.message = message
    }
}
