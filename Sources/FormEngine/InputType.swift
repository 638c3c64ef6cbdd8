/// The kinds of input a form can hold: the five a Formworks client knows, and the extension types.
///
/// The raw value is the component's key in the definition: `{"email": {"id": "mail", ...}}`. Show
/// each type with the control its values call for; the engine accepts text for numbers, dates and
/// switches too, as a text field would send them.
public enum InputType: String, Sendable, CaseIterable {
    /// One line of text.
    case text
    /// Several lines of text.
    case multiline
    /// An e-mail address.
    case email
    /// Digits only, kept as text (leading zeros stay).
    case numerical
    /// A Brazilian phone number, such as `(11) 91234-5678`.
    case phonenumber
    /// A whole number, stored as a JSON number.
    case integer
    /// A number, stored as a JSON number; `maxDecimalPlaces` may limit its digits after the point.
    case decimal
    /// A date written `YYYY-MM-DD`.
    case date
    /// One of the definition's `options` by id, or several (an array) when `multiple` is true.
    case select
    /// On or off, stored as a JSON boolean; a required switch must be on.
    case `switch`
    /// A whole number counted with a stepper, stored as a JSON number.
    case count
    /// Text that the app should not show as typed.
    case password
    /// A US phone number, such as `555-123-4567`.
    case usphone
    /// A US state's name or two-letter code, stored as the code.
    case usstate
    /// One or more uploaded files, sent as upload ids and stored as the uploads' facts; its rules
    /// are ``FileInputRules``.
    case file

    /// Whether a Formworks client knows this type.
    public var isFormworks: Bool {
        switch self {
        case .text, .multiline, .email, .numerical, .phonenumber: true
        default: false
        }
    }

    /// Whether values are free text (lengths and a regex apply).
    var isText: Bool {
        switch self {
        case .text, .multiline, .email, .numerical, .phonenumber, .password, .usphone: true
        default: false
        }
    }

    /// Whether `minLength`/`maxLength` apply: to text, and to numbers as typed.
    var takesLengths: Bool {
        isText || self == .integer || self == .decimal
    }

    /// Whether `minValue`/`maxValue` apply: to numbers, and to `numerical` digits read as a number.
    var takesValueBounds: Bool {
        isNumeric || self == .numerical
    }

    /// Whether values are numbers (minValue/maxValue apply).
    var isNumeric: Bool {
        switch self {
        case .integer, .decimal, .count: true
        default: false
        }
    }
}
