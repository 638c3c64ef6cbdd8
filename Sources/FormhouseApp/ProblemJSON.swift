/// The body of an RFC 9457 problem: the four standard members, then the problem's own.
struct ProblemJSON: Encodable {
    var type: String
    var title: String
    var status: Int
    var detail: String
    var extra: ProblemExtra

    private enum CodingKeys: CodingKey {
        case type, title, status, detail
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(title, forKey: .title)
        try container.encode(status, forKey: .status)
        try container.encode(detail, forKey: .detail)
        try extra.encode(to: encoder)
    }
}

/// The members a problem adds to the standard four, each left out when absent.
struct ProblemExtra: Encodable, Sendable {
    /// What was wrong, one entry per field or place in the upload.
    var errors: [ProblemErrorJSON]?
    /// With `truncated`, when `errors` lists fewer than there are: how many there are.
    var errorCount: Int?
    var truncated: Bool?
    /// The byte at which a malformed submission broke.
    var offset: Int?
    /// The version a submission to an unknown version of the form could go to.
    var currentVersion: Int?
    /// The most bytes a refused file may have.
    var maxSize: Int?
    /// The revision a draft is at, when a change was made from another.
    var currentRevision: Int?
}

/// One entry of a problem's `errors`: a submission's `field` or a definition's JSON `pointer`, then
/// what is wrong and why.
struct ProblemErrorJSON: Encodable, Sendable {
    var pointer: String?
    var field: String?
    var code: String
    var message: String
}
