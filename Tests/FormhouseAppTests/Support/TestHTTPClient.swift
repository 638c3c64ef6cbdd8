import Foundation
@testable import FormhouseApp
#if canImport(Glibc)
import Glibc
#endif

/// A deliberately plain HTTP/1.1 client over a blocking socket, so tests see exactly the bytes the
/// server sends (status line, headers, chunked framing) with nothing in between.
struct TestResponse {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: Any? { try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) }
    var object: [String: Any] { json as? [String: Any] ?? [:] }
}

///
/// The socket calls block, so the async methods run them on a Dispatch thread: blocking a test's
/// cooperative thread could starve the in-process server of the threads its handlers need.
struct TestHTTPClient: Sendable {
    var port: Int
    var token: String?

    func get(_ path: String, headers: [(String, String)] = []) async throws -> TestResponse {
        try await send("GET", path, headers: headers)
    }

    func postJSON(_ path: String, _ json: String, headers: [(String, String)] = []) async throws -> TestResponse {
        try await send("POST", path, headers: [("Content-Type", "application/json")] + headers, body: Array(json.utf8))
    }

    func admin(_ method: String, _ path: String, json: String? = nil) async throws -> TestResponse {
        var headers: [(String, String)] = [("Authorization", "Bearer \(token ?? "")")]
        if json != nil { headers.append(("Content-Type", "application/json")) }
        return try await send(method, path, headers: headers, body: json.map { Array($0.utf8) } ?? [])
    }

    func send(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) async throws -> TestResponse {
        try await Offload.blocking { try sendNow(method, path, headers: headers, body: body) }
    }

    /// `POST` with a JSON body, blocking the calling thread (for tests that drive their own threads).
    func postJSONNow(_ path: String, _ json: String, headers: [(String, String)] = []) throws -> TestResponse {
        try sendNow("POST", path, headers: [("Content-Type", "application/json")] + headers, body: Array(json.utf8))
    }

    func sendNow(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> TestResponse {
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { request += "Content-Length: \(body.count)\r\n" }
        request += "\r\n"
        return try exchange(Array(request.utf8) + body, method: method)
    }

    /// Sends raw bytes on a fresh connection and reads until the server closes it.
    func exchange(_ bytes: [UInt8], method: String = "GET") throws -> TestResponse {
        let raw = try rawExchange(bytes)
        return try TestResponse.parse(raw, method: method)
    }

    func rawExchange(_ bytes: [UInt8]) throws -> [UInt8] {
        let fd = try TestSocket.connect(port: port)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try TestSocket.send(fd, bytes)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        return received
    }
}

struct TestClientError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension TestResponse {
    static func parse(_ raw: [UInt8], method: String) throws -> TestResponse {
        guard let end = find(raw, [13, 10, 13, 10], from: 0) else {
            throw TestClientError("no complete response head in \(raw.count) bytes: \(String(decoding: raw.prefix(200), as: UTF8.self))")
        }
        let lines = String(decoding: raw[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw TestClientError("bad status line \(lines[0])") }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var response = TestResponse(status: status, headers: headers, body: [])
        let rest = Array(raw[(end + 4)...])
        if method == "HEAD" || status == 204 || status == 304 { return response }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            response.body = try dechunk(rest)
        } else if let length = response.header("Content-Length").flatMap(Int.init) {
            guard rest.count >= length else { throw TestClientError("body shorter than Content-Length") }
            response.body = Array(rest.prefix(length))
        } else {
            response.body = rest
        }
        return response
    }

    static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while true {
            guard let lineEnd = find(bytes, [13, 10], from: i) else { throw TestClientError("truncated chunk size") }
            let sizeText = String(decoding: bytes[i..<lineEnd], as: UTF8.self).split(separator: ";")[0]
            guard let size = Int(sizeText, radix: 16) else { throw TestClientError("bad chunk size \(sizeText)") }
            i = lineEnd + 2
            if size == 0 { return out }
            guard i + size + 2 <= bytes.count else { throw TestClientError("truncated chunk") }
            out += bytes[i..<(i + size)]
            i += size + 2
        }
    }

    static func find(_ haystack: [UInt8], _ needle: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var i = start
        while i + needle.count <= haystack.count {
            if haystack[i] == needle[0] && Array(haystack[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }
}
