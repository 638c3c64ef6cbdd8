/// The `/validate` answer: whether the values pass, then their field errors as a 422 lists them.
struct ValidationJSON: Encodable {
    var valid: Bool
    var listed: ProblemExtra

    /// The answer for values that pass, encoded once.
    static let valid = JSONValueEncoder.serialize(ValidationJSON(valid: true, listed: APIProblem.listedErrors([])))

    private enum CodingKeys: CodingKey {
        case valid
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(valid, forKey: .valid)
        try listed.encode(to: encoder)
    }
}
