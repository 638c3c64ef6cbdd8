import HTTPServer

extension Response {
    /// A JSON answer (`Content-Type: application/json`) encoded from `answer` by ``JSONValueEncoder``.
    static func json(encoding answer: some Encodable, status: Int = 200) -> Response {
        .json(JSONValueEncoder.serialize(answer), status: status)
    }
}
