/// The kinds of input a form can hold: Formworks' five and the extension types.
public enum InputType: String, Sendable, CaseIterable {
    case text, multiline, email, numerical, phonenumber
    case integer, decimal, date, select, `switch`, count, password, usphone, usstate

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

    /// Whether values are numbers (minValue/maxValue apply).
    var isNumeric: Bool {
        switch self {
        case .integer, .decimal, .count: true
        default: false
        }
    }
}
