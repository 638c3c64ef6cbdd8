import Foundation

/// How a response body is produced.
public enum ResponseBody: Sendable {
    /// No body.
    case empty
    /// A body held in memory, sent with `Content-Length`.
    case bytes([UInt8])
    /// A body written piece by piece, sent chunked; `write` waits while the client is slow to read.
    case stream(@Sendable (any BodyWriter) async throws -> Void)

    var isStream: Bool {
        if case .stream = self { return true }
        return false
    }
}

/// The sink a streaming body writes to.
public protocol BodyWriter: Sendable {
    /// Sends `bytes` as the next part of the body; suspends while the connection is backed up.
    func write(_ bytes: [UInt8]) async throws
}

/// An HTTP response.
public struct Response: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields; `Date`, `Content-Length`/`Transfer-Encoding` and `Connection` are added by the server.
    public var headers: HTTPHeaders
    /// The body.
    public var body: ResponseBody
    /// Set on the server's own problems (`standardProblem`): their detail, from which the server
    /// writes the body with the configured type and writer (`problemTypeBase`, `problemEncoder`).
    var serverProblemDetail: String?

    /// A response with the given status, headers and body.
    public init(status: Int = 200, headers: HTTPHeaders = .init(), body: ResponseBody = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response (`Content-Type: application/json`).
    public static func json(_ bytes: [UInt8], status: Int = 200) -> Response {
        Response(status: status, headers: jsonHeaders, body: .bytes(bytes))
    }

    /// Shared, so the common JSON answer allocates no header storage of its own.
    private static let jsonHeaders: HTTPHeaders = ["Content-Type": "application/json"]

    /// An RFC 9457 problem details response (`application/problem+json`); `extra` adds string members.
    public static func problem(status: Int, type: String, title: String, detail: String, extra: [(String, String)] = []) -> Response {
        Response(status: status, headers: problemHeaders, body: .bytes(ProblemDetails.encodedByFoundation(
            ProblemDetails(type: type, title: title, status: status, detail: detail, extra: extra))))
    }

    private static let problemHeaders: HTTPHeaders = ["Content-Type": "application/problem+json"]

    /// The problem the server itself answers with for a status (refusals, 404, 405, 500). Only its
    /// detail is kept: `ServerCore` writes the body, with the configured type and writer, once.
    @usableFromInline
    static func standardProblem(status: Int, detail: String) -> Response {
        var response = Response(status: status, headers: problemHeaders)
        response.serverProblemDetail = detail
        return response
    }
}

/// RFC 9457 problem details as the server writes them: the four standard members, in that order,
/// and any extra string members.
public struct ProblemDetails: Encodable, Sendable {
    public var type: String
    public var title: String
    public var status: Int
    public var detail: String
    public var extra: [(String, String)]

    public init(type: String, title: String, status: Int, detail: String, extra: [(String, String)] = []) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.extra = extra
    }

    /// Encoded by Foundation's `JSONEncoder`, so the server keeps no JSON writer of its own. That
    /// encoder keeps no member order but sorted; an application with an order-keeping writer gives
    /// it as ``HTTPServerConfiguration/problemEncoder``.
    public static let encodedByFoundation: @Sendable (ProblemDetails) -> [UInt8] = { problem in
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings and an integer cannot fail to encode; the status alone is still a valid problem.
        return (try? Array(encoder.encode(problem))) ?? Array(#"{"status":\#(problem.status)}"#.utf8)
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(type, forKey: Key("type"))
        try container.encode(title, forKey: Key("title"))
        try container.encode(status, forKey: Key("status"))
        try container.encode(detail, forKey: Key("detail"))
        for (name, value) in extra { try container.encode(value, forKey: Key(name)) }
    }
}
