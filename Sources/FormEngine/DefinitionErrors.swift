/// Every problem found in a definition, thrown by ``FormDefinition``'s initializers.
///
/// A definition is read to the end before this is thrown, so one error lists everything to fix.
public struct DefinitionErrors: Error, Sendable {
    /// The problems: shape and property problems in upload order, then duplicate ids, then conditions.
    public var problems: [DefinitionProblem]

    /// An error listing `problems`.
    public init(problems: [DefinitionProblem]) {
        self.problems = problems
    }

    /// The one problem of bytes that are not JSON.
    init(notJSON error: JSONParseError) {
        problems = [DefinitionProblem(pointer: "", code: .malformedJSON, message: "Not valid JSON at byte \(error.offset): \(error.message).")]
    }
}

/// One problem in a definition: where (a JSON Pointer into the upload), what (a stable code), and a
/// message a person can act on.
public struct DefinitionProblem: Sendable, Equatable {
    /// What kind of problem; the raw value is the code sent to clients.
    public enum Code: String, Sendable, CaseIterable {
        /// The upload is not JSON.
        case malformedJSON
        /// A property has the wrong JSON type.
        case invalidType
        /// A required property is absent.
        case missing
        /// A component is not an object with exactly one key, its type.
        case componentKeys
        /// A component's type is none the engine knows.
        case unknownType
        /// An id is empty or holds a space, `.`, `[` or `]`.
        case invalidID
        /// Two components at the same level share an id.
        case duplicateID
        /// A `regex` does not compile.
        case badRegex
        /// A style color is not `#RRGGBB` or `#RRGGBBAA`.
        case badColor
        /// A minimum is above its maximum, or a repeat's bounds are out of range.
        case badBounds
        /// A date bound is not `YYYY-MM-DD`.
        case badDate
        /// A value is outside the ones the property takes.
        case badValue
        /// A property does not apply to the component's type.
        case notApplicable
        /// A select option has no id.
        case optionWithoutID
        /// Two options of a select share an id.
        case duplicateOptionID
        /// A `visibleWhen` is not a condition.
        case badCondition
        /// A condition names no input.
        case unknownField
        /// A condition names an input inside a repeating group from outside it.
        case conditionInRepeat
        /// A condition names an input that comes after the component it controls.
        case forwardReference
        /// A `formula` does not parse, mixes types, or reads what it cannot (the message says where).
        case badFormula
        /// Computed inputs read each other in a cycle (the message names it).
        case formulaCycle
        /// Repeats, nesting or the Formworks profile are past their limits.
        case tooLarge
        /// The form's id is not one a server can store (reported by the server, at `/id`).
        case invalidFormId
        /// The body's id differs from the URL's (reported by the server, at `/id`).
        case idMismatch
        /// A part of an imported form (``HyperosloImport``) that Formhouse cannot carry over.
        case notCarriedOver
    }

    /// JSON Pointer to the offending value in the upload (`""` for the whole document).
    public var pointer: String
    /// What kind of problem.
    public var code: Code
    /// What is wrong and how to fix it, for a person.
    public var message: String

    /// A problem at `pointer`.
    public init(pointer: String, code: Code, message: String) {
        self.pointer = pointer
        self.code = code
        self.message = message
    }
}
