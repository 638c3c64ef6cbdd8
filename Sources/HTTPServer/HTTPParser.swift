#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a request was refused: the status to answer with and a short reason for the log.
struct ParseError: Error, Equatable, Sendable {
    var status: Int
    var reason: String
    /// The request's fields, when the refusal came after they were read (a body over the limit),
    /// so hooks can add what the answer needs (CORS).
    var headers: HTTPHeaders? = nil

    /// Equal by what was refused and why; the fields are context.
    static func == (lhs: ParseError, rhs: ParseError) -> Bool {
        lhs.status == rhs.status && lhs.reason == rhs.reason
    }
}

/// How the body of a request is delimited.
enum BodyFraming: Equatable, Sendable {
    case none
    case length(Int)
    case chunked
}

/// The limits the parser enforces; the server fills them from its configuration.
struct ParserLimits: Sendable {
    var maxURIBytes = 8 * 1024
    var maxHeaderBytes = 64 * 1024
    var maxHeaderCount = 100
    var maxBodyBytes = 1024 * 1024
}

/// A parsed request line and header section.
struct RequestHead: Sendable {
    var method: HTTPMethod
    var path: String
    var query: String?
    var minorVersion: Int
    var headers: HTTPHeaders
    var framing: BodyFraming
    var keepAlive: Bool
    var expectsContinue: Bool
}

/// Parses a request head (RFC 9112 §2–§6) from bytes, strictly: anything ambiguous is refused.
enum HTTPParser {
    enum HeadResult {
        case incomplete
        case complete(RequestHead, consumed: Int)
        case failure(ParseError)
    }

    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")

    /// tchar per RFC 9110 §5.6.2.
    static let tokenTable = byteTable(lettersDigitsAnd: "!#$%&'*+-.^_`|~")

    /// A control character other than tab: not allowed in a field value (RFC 9110 §5.5), a trailer's
    /// or a chunk extension.
    static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F
    }

    /// A lookup table of the bytes allowed in some syntax: ASCII letters and digits, and `others`.
    private static func byteTable(lettersDigitsAnd others: String) -> [Bool] {
        (0..<256).map { value in
            let byte = UInt8(value)
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return others.utf8.contains(byte)
            }
        }
    }

    /// Finds the end of the head: the index just past the empty line, or nil.
    /// A bare-LF empty line also ends the search, so the line check refuses it instead of waiting.
    static func findHeadEnd(_ buffer: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let base = buffer.baseAddress else { return nil }
        var index = start
        while index < buffer.count {
            guard let found = memchr(base + index, Int32(lf), buffer.count - index) else { return nil }
            let position = base.distance(to: UnsafeRawPointer(found))
            if position + 1 < buffer.count, buffer[position + 1] == lf {
                return position + 2
            }
            if position + 2 < buffer.count, buffer[position + 1] == cr, buffer[position + 2] == lf {
                return position + 3
            }
            index = position + 1
        }
        return nil
    }

    /// Parses a complete head occupying `buffer[0..<end]` (end as returned by `findHeadEnd`).
    static func parseHead(_ buffer: UnsafeRawBufferPointer, end: Int, limits: ParserLimits) -> HeadResult {
        var index = 0
        // RFC 9112 §2.2: ignore empty lines before the request line.
        while index + 1 < end, buffer[index] == cr, buffer[index + 1] == lf {
            index += 2
        }
        guard let lineEnd = findLineEnd(buffer, from: index, to: end) else {
            return .failure(.init(status: 400, reason: "malformed request line"))
        }
        let line: (method: HTTPMethod, targetStart: Int, targetEnd: Int, minor: Int)
        switch parseRequestLine(buffer, from: index, to: lineEnd, limits: limits) {
        case .success(let parsed): line = parsed
        case .failure(let error): return .failure(error)
        }
        index = lineEnd + 2
        let headerStart = index
        var headers = HTTPHeaders()
        headers.fields.reserveCapacity(8)
        while true {
            guard let fieldEnd = findLineEnd(buffer, from: index, to: end) else {
                return .failure(.init(status: 400, reason: "malformed header line"))
            }
            if fieldEnd == index {
                index += 2
                break
            }
            guard headers.count < limits.maxHeaderCount else {
                return .failure(.init(status: 431, reason: "more than \(limits.maxHeaderCount) header fields"))
            }
            guard fieldEnd - headerStart <= limits.maxHeaderBytes else {
                return .failure(.init(status: 431, reason: "header section over \(limits.maxHeaderBytes) bytes"))
            }
            switch parseField(buffer, from: index, to: fieldEnd) {
            case .success(let field): headers.fields.append(field)
            case .failure(let error): return .failure(error)
            }
            index = fieldEnd + 2
        }
        guard index - headerStart <= limits.maxHeaderBytes else {
            return .failure(.init(status: 431, reason: "header section over \(limits.maxHeaderBytes) bytes"))
        }
        return finishHead(buffer, line: line, headers: headers, consumed: index, limits: limits)
    }

    /// The index of the CR of the CRLF ending the line starting at `start`, or nil if the line is malformed.
    private static func findLineEnd(_ buffer: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
        var index = start
        while index < end {
            let byte = buffer[index]
            if byte == cr {
                return index + 1 < end && buffer[index + 1] == lf ? index : nil
            }
            if byte == lf { return nil }
            index += 1
        }
        return nil
    }

    private static func parseRequestLine(
        _ buffer: UnsafeRawBufferPointer, from start: Int, to end: Int, limits: ParserLimits
    ) -> Result<(method: HTTPMethod, targetStart: Int, targetEnd: Int, minor: Int), ParseError> {
        var index = start
        while index < end, tokenTable[Int(buffer[index])] { index += 1 }
        guard index > start, index < end, buffer[index] == UInt8(ascii: " ") else {
            return .failure(.init(status: 400, reason: "malformed method"))
        }
        let method = HTTPMethod.known(UnsafeRawBufferPointer(rebasing: buffer[start..<index]))
            ?? HTTPMethod(rawValue: String(decoding: UnsafeRawBufferPointer(rebasing: buffer[start..<index]), as: UTF8.self))
        index += 1
        let targetStart = index
        // A fragment ("#") is never part of a request target (RFC 9112 §3.2): it stops the scan and is refused.
        while index < end, buffer[index] > 0x20, buffer[index] < 0x7F, buffer[index] != UInt8(ascii: "#") { index += 1 }
        let targetEnd = index
        guard targetEnd - targetStart <= limits.maxURIBytes else {
            return .failure(.init(status: 414, reason: "request target over \(limits.maxURIBytes) bytes"))
        }
        guard targetEnd > targetStart, index < end, buffer[index] == UInt8(ascii: " ") else {
            return .failure(.init(status: 400, reason: "malformed request target"))
        }
        index += 1
        let version = UnsafeRawBufferPointer(rebasing: buffer[index..<end])
        guard version.count == 8, version.starts(with: "HTTP/".utf8),
              version[5] >= UInt8(ascii: "0"), version[5] <= UInt8(ascii: "9"), version[6] == UInt8(ascii: "."),
              version[7] >= UInt8(ascii: "0"), version[7] <= UInt8(ascii: "9") else {
            return .failure(.init(status: 400, reason: "malformed HTTP version"))
        }
        guard version[5] == UInt8(ascii: "1") else {
            return .failure(.init(status: 505, reason: "unsupported HTTP version"))
        }
        // HTTP/1.2 and later minors are answered as 1.1, the highest this server speaks (RFC 9110
        // §2.5), not taken for 1.0 by the checks that compare the minor with 1.
        return .success((method, targetStart, targetEnd, min(1, Int(version[7] - UInt8(ascii: "0")))))
    }

    private static func parseField(_ buffer: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Result<(name: String, value: String), ParseError> {
        var index = start
        while index < end, tokenTable[Int(buffer[index])] { index += 1 }
        // A leading space is obsolete line folding; space before the colon is forbidden (RFC 9112 §5.1).
        guard index > start, index < end, buffer[index] == UInt8(ascii: ":") else {
            return .failure(.init(status: 400, reason: "malformed header field"))
        }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: buffer[start..<index]), as: UTF8.self)
        index += 1
        while index < end, buffer[index] == UInt8(ascii: " ") || buffer[index] == UInt8(ascii: "\t") { index += 1 }
        var valueEnd = end
        while valueEnd > index, buffer[valueEnd - 1] == UInt8(ascii: " ") || buffer[valueEnd - 1] == UInt8(ascii: "\t") { valueEnd -= 1 }
        var scan = index
        while scan < valueEnd {
            let byte = buffer[scan]
            if isControl(byte) {
                return .failure(.init(status: 400, reason: "invalid character in header value"))
            }
            scan += 1
        }
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: buffer[index..<valueEnd]), as: UTF8.self)
        return .success((name, value))
    }

    private static func finishHead(
        _ buffer: UnsafeRawBufferPointer,
        line: (method: HTTPMethod, targetStart: Int, targetEnd: Int, minor: Int),
        headers: HTTPHeaders, consumed: Int, limits: ParserLimits
    ) -> HeadResult {
        let target = UnsafeRawBufferPointer(rebasing: buffer[line.targetStart..<line.targetEnd])
        guard let (path, query) = splitTarget(target, method: line.method) else {
            return .failure(.init(status: 400, reason: "malformed request target"))
        }
        var hostCount = 0
        var transferEncoding: [String] = []
        var contentLength: Int?
        var connectionClose = false
        var connectionKeepAlive = false
        var expectsContinue = false
        for (name, value) in headers.fields {
            switch name.utf8.count {
            case 4 where HTTPHeaders.equalsIgnoringCase(name, "Host"):
                hostCount += 1
                guard isValidHost(value) else { return .failure(.init(status: 400, reason: "invalid Host")) }
            case 6 where HTTPHeaders.equalsIgnoringCase(name, "Expect"):
                guard HTTPHeaders.equalsIgnoringCase(value, "100-continue") else {
                    return .failure(.init(status: 417, reason: "the only expectation supported is 100-continue"))
                }
                expectsContinue = true
            case 10 where HTTPHeaders.equalsIgnoringCase(name, "Connection"):
                for option in tokens(value) {
                    if HTTPHeaders.equalsIgnoringCase(option, "close") { connectionClose = true }
                    if HTTPHeaders.equalsIgnoringCase(option, "keep-alive") { connectionKeepAlive = true }
                }
            case 14 where HTTPHeaders.equalsIgnoringCase(name, "Content-Length"):
                for item in tokens(value, keepEmpty: true) {
                    guard let length = parseLength(item) else {
                        return .failure(.init(status: 400, reason: "invalid Content-Length"))
                    }
                    if let contentLength, contentLength != length {
                        return .failure(.init(status: 400, reason: "conflicting Content-Length"))
                    }
                    contentLength = length
                }
            case 17 where HTTPHeaders.equalsIgnoringCase(name, "Transfer-Encoding"):
                let codings = tokens(value, keepEmpty: true)
                guard !codings.contains(where: \.isEmpty) else {
                    return .failure(.init(status: 400, reason: "invalid Transfer-Encoding"))
                }
                transferEncoding += codings
            default:
                break
            }
        }
        // RFC 9112 §3.2: HTTP/1.1 needs exactly one Host; no version may send two.
        if hostCount > 1 || (line.minor == 1 && hostCount == 0) {
            return .failure(.init(status: 400, reason: hostCount == 0 ? "missing Host" : "repeated Host"))
        }
        var framing = BodyFraming.none
        if !transferEncoding.isEmpty {
            // Both framings at once is the classic smuggling vector (RFC 9112 §6.3).
            guard contentLength == nil else {
                return .failure(.init(status: 400, reason: "both Transfer-Encoding and Content-Length"))
            }
            guard line.minor == 1 else {
                return .failure(.init(status: 400, reason: "Transfer-Encoding in HTTP/1.0"))
            }
            // Chunked must come last, or the body's end is unknown: 400 (RFC 9112 §6.3), before
            // asking whether the other codings are ones this server could undo (501).
            guard HTTPHeaders.equalsIgnoringCase(transferEncoding[transferEncoding.count - 1], "chunked") else {
                return .failure(.init(status: 400, reason: "chunked is not the final transfer coding"))
            }
            for coding in transferEncoding.dropLast() where !HTTPHeaders.equalsIgnoringCase(coding, "chunked") {
                return .failure(.init(status: 501, reason: "unsupported transfer coding"))
            }
            guard transferEncoding.count == 1 else {
                return .failure(.init(status: 400, reason: "chunked applied more than once"))
            }
            framing = .chunked
        } else if let contentLength {
            // Its limit depends on the route (a streamed upload takes more): the decoder checks it.
            framing = contentLength > 0 ? .length(contentLength) : .none
        }
        let keepAlive = line.minor == 1 ? !connectionClose : (connectionKeepAlive && !connectionClose)
        let head = RequestHead(
            method: line.method, path: path, query: query, minorVersion: line.minor, headers: headers,
            framing: framing, keepAlive: keepAlive, expectsContinue: expectsContinue && line.minor == 1 && framing != .none
        )
        return .complete(head, consumed: consumed)
    }

    /// A Host value is an authority without userinfo (RFC 9110 §7.2): only the bytes a reg-name, IP
    /// literal and port are made of, and empty is allowed; a value with others (spaces, "/", "@", "?")
    /// is refused. Bytes past ASCII pass, as nginx lets raw UTF-8 names through.
    static func isValidHost(_ value: String) -> Bool {
        value.utf8.allSatisfy { hostTable[Int($0)] }
    }

    /// unreserved, pct-encoded, sub-delims, ":", the brackets of an IP literal, and non-ASCII bytes.
    private static let hostTable = byteTable(lettersDigitsAnd: "-._~%!$&'()*+,;=:[]").enumerated().map { $0.offset >= 0x80 || $0.element }

    /// Splits origin-form, absolute-form or asterisk-form into the raw path and query.
    static func splitTarget(_ target: UnsafeRawBufferPointer, method: HTTPMethod) -> (String, String?)? {
        var start = 0
        if target.count == 1, target[0] == UInt8(ascii: "*") {
            return method == .options ? ("*", nil) : nil
        }
        if target[0] != UInt8(ascii: "/") {
            // absolute-form: scheme "://" authority [path] (RFC 9112 §3.2.2)
            var index = 0
            while index < target.count, isSchemeByte(target[index]) { index += 1 }
            guard index > 0, index + 3 <= target.count, target[index] == UInt8(ascii: ":"),
                  target[index + 1] == UInt8(ascii: "/"), target[index + 2] == UInt8(ascii: "/") else { return nil }
            index += 3
            let authorityStart = index
            while index < target.count, target[index] != UInt8(ascii: "/"), target[index] != UInt8(ascii: "?") { index += 1 }
            guard index > authorityStart else { return nil }
            if index == target.count {
                return ("/", nil)
            }
            if target[index] == UInt8(ascii: "?") {
                return ("/", String(decoding: UnsafeRawBufferPointer(rebasing: target[(index + 1)...]), as: UTF8.self))
            }
            start = index
        }
        let rest = UnsafeRawBufferPointer(rebasing: target[start...])
        if let question = rest.firstIndex(of: UInt8(ascii: "?")) {
            return (String(decoding: UnsafeRawBufferPointer(rebasing: rest[..<question]), as: UTF8.self),
                    String(decoding: UnsafeRawBufferPointer(rebasing: rest[(question + 1)...]), as: UTF8.self))
        }
        return (String(decoding: rest, as: UTF8.self), nil)
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    /// Comma-separated list items, trimmed of optional whitespace.
    static func tokens(_ value: String, keepEmpty: Bool = false) -> [String] {
        // The usual single item (a length, `keep-alive`, `chunked`) skips the split and its arrays.
        if !value.utf8.contains(UInt8(ascii: ",")) {
            let trimmed = Substring(value).trimmingASCIISpace()
            return trimmed.isEmpty && !keepEmpty ? [] : [String(trimmed)]
        }
        return value.split(separator: ",", omittingEmptySubsequences: false).compactMap { item in
            let trimmed = item.trimmingASCIISpace()
            return trimmed.isEmpty && !keepEmpty ? nil : String(trimmed)
        }
    }

    /// A non-negative decimal length; values too large to matter saturate so they trip the body limit.
    static func parseLength(_ text: String) -> Int? {
        guard !text.isEmpty else { return nil }
        var result = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            result = result > Int.max / 20 ? Int.max / 2 : result * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return result
    }
}

extension Substring {
    /// Without the spaces and tabs at either end (optional whitespace around header values and list items).
    /// Works on bytes: optional whitespace is the bytes SP and HTAB, and stepping by `Character` would pay
    /// for grapheme breaking on every header value and media type of every request.
    public func trimmingASCIISpace() -> Substring {
        let bytes = utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start = bytes.index(after: start) }
        while start < end {
            let last = bytes.index(before: end)
            guard bytes[last] == 0x20 || bytes[last] == 0x09 else { break }
            end = last
        }
        return self[start..<end]
    }
}
