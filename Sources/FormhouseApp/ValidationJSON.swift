import FormEngine

/// The `/validate` answer: whether the values pass, the values of the computed inputs (when the
/// form has any), then the field errors as a 422 lists them.
struct ValidationJSON: Encodable {
    var valid: Bool
    var computed: JSONObject = JSONObject()
    var listed: ProblemExtra

    /// The answer for values that pass, encoded once.
    static let valid = JSONValueEncoder.serialize(ValidationJSON(valid: true, listed: APIProblem.listedErrors([])))

    private enum CodingKeys: CodingKey {
        case valid, computed
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(valid, forKey: .valid)
        if !computed.isEmpty { try container.encode(JSONValue.object(computed), forKey: .computed) }
        try listed.encode(to: encoder)
    }
}
