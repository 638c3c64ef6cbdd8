/// Every problem found in an uploaded definition.
public struct DefinitionErrors: Error, Sendable {
    /// The problems: shape and property problems in upload order, then duplicate ids, then conditions.
    public var problems: [DefinitionProblem]

    public init(problems: [DefinitionProblem]) {
        self.problems = problems
    }
}

/// One problem in a definition: where (a JSON Pointer into the upload), what (a stable code), and a
/// message a person can act on.
///
/// Codes: `malformedJSON`, `invalidType` (a property of the wrong JSON type), `missing`,
/// `componentKeys`, `unknownType`, `invalidID`, `duplicateID`, `badRegex`, `badColor`, `badBounds`,
/// `badDate`, `badValue`, `notApplicable`, `optionWithoutID`, `duplicateOptionID`, `badCondition`,
/// `unknownField`, `conditionInRepeat`, `forwardReference`, `tooLarge` (repeats or a formworks profile
/// past their limits). The server adds `invalidFormId` and `idMismatch`, both at `/id`.
public struct DefinitionProblem: Sendable, Equatable {
    public var pointer: String
    public var code: String
    public var message: String

    public init(pointer: String, code: String, message: String) {
        self.pointer = pointer
        self.code = code
        self.message = message
    }
}
