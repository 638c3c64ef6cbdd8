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
    /// Set on the server's own problems (`standardProblem`): their detail, so the server can give them
    /// the configured problem type (`HTTPServerConfiguration.problemTypeBase`) before sending.
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
        Response(status: status, headers: ["Content-Type": "application/problem+json"],
                 body: .bytes(problemBody(status: status, type: type, title: title, detail: detail, extra: extra)))
    }

    static func problemBody(status: Int, type: String, title: String, detail: String, extra: [(String, String)] = []) -> [UInt8] {
        var json = Array(#"{"type":"#.utf8)
        JSONString.append(type, to: &json)
        json += Array(#","title":"#.utf8)
        JSONString.append(title, to: &json)
        json += Array(#","status":"#.utf8)
        json += Array(String(status).utf8)
        json += Array(#","detail":"#.utf8)
        JSONString.append(detail, to: &json)
        for (name, value) in extra {
            json.append(UInt8(ascii: ","))
            JSONString.append(name, to: &json)
            json.append(UInt8(ascii: ":"))
            JSONString.append(value, to: &json)
        }
        json.append(UInt8(ascii: "}"))
        return json
    }

    /// The problem the server itself answers with for a status (refusals, 404, 405, 500): type
    /// `about:blank` (RFC 9457 §4.2.1) until the server gives it the configured one.
    @usableFromInline
    static func standardProblem(status: Int, detail: String) -> Response {
        var response = problem(status: status, type: "about:blank", title: HTTPStatus.reason(status), detail: detail)
        response.serverProblemDetail = detail
        return response
    }
}

/// JSON string literal encoding (RFC 8259 §7).
enum JSONString {
    static func append(_ string: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n"): out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                out += Array("\\u00".utf8)
                out += [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
