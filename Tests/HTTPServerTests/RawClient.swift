import Foundation
import Glibc
import HTTPServer
import Logging

/// A blocking test client on a raw socket, so tests can send exactly the bytes they mean.
final class RawClient: @unchecked Sendable {
    struct Reply {
        var status: Int
        var statusLine: String
        var headers: HTTPHeaders
        var body: [UInt8]
        /// The size of each chunk of a chunked body, in order.
        var chunkSizes: [Int] = []
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let fd: Int32
    private var buffer: [UInt8] = []
    /// errno of the read that ended the stream, 0 for an orderly close.
    private var lastError: Int32 = 0

    init(port: Int, host: String = "127.0.0.1") throws {
        let family = host.contains(":") ? AF_INET6 : AF_INET
        fd = socket(family, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        // A safety net so a broken server fails the test instead of hanging it; not a timing assertion.
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result: Int32
        if family == AF_INET6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = Self.connect(fd, to: &address)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            result = Self.connect(fd, to: &address)
        }
        guard result == 0 else {
            let error = errno
            // Through close(), which marks it closed: deinit runs for an object whose init threw
            // once fully initialized, and a second close would close whatever reused the number.
            close()
            throw Failure(description: "connect failed: \(error)")
        }
    }

    /// Connects `fd` to an IPv4 or IPv6 socket address.
    private static func connect<Address>(_ fd: Int32, to address: inout Address) -> Int32 {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
    }

    private var isClosed = false

    /// Closes the socket now, as a client that goes away would.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

    deinit {
        close()
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failure(description: "send failed: \(errno)") }
            sent += count
        }
    }

    /// Reads more bytes; false at end of stream (or reset).
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer += chunk[0..<count]
            return true
        }
        if count < 0, errno == EAGAIN { throw Failure(description: "read timed out") }
        // A reset or a descriptor closed under us reads as the end too; say which, for a failure.
        lastError = count < 0 ? errno : 0
        return false
    }

    private func readLine() throws -> String {
        while true {
            if let index = buffer.firstIndex(of: 10) {
                let line = buffer[..<index]
                buffer.removeFirst(index + 1)
                return String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self)
            }
            guard try fill() else { throw Failure(description: "connection closed mid-line (errno \(lastError), \(buffer.count) bytes unread)") }
        }
    }

    private func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw Failure(description: "connection closed mid-body (errno \(lastError))") }
        }
        let bytes = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// Reads one response; `head` says the request was HEAD (no body follows).
    func readReply(head: Bool = false) throws -> Reply {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure(description: "bad status line: \(statusLine)") }
        var headers = HTTPHeaders()
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw Failure(description: "bad header: \(line)") }
            headers.add(String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        var body: [UInt8] = []
        var chunkSizes: [Int] = []
        if head || status < 200 || status == 204 || status == 304 {
            return Reply(status: status, statusLine: statusLine, headers: headers, body: body)
        }
        if let length = headers["Content-Length"].flatMap({ Int($0) }) {
            body = try readExactly(length)
        } else if headers["Transfer-Encoding"] == "chunked" {
            while true {
                let size = Int(try readLine(), radix: 16) ?? -1
                guard size >= 0 else { throw Failure(description: "bad chunk size") }
                if size == 0 {
                    _ = try readLine()
                    break
                }
                body += try readExactly(size)
                chunkSizes.append(size)
                _ = try readLine()
            }
        } else {
            while try fill() {}
            body = buffer
            buffer = []
        }
        return Reply(status: status, statusLine: statusLine, headers: headers, body: body, chunkSizes: chunkSizes)
    }

    /// True when the server has closed the connection in order, with a FIN rather than a reset
    /// (after any bytes still unread).
    func isClosedInOrder() -> Bool {
        isClosedByServer() && lastError == 0
    }

    /// Bytes received and not yet taken by a reply.
    var unreadBytes: Int { buffer.count }

    /// Half-closes: the client will send nothing more but still reads.
    func shutdownWrite() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// True when the server has closed the connection (after any bytes still unread).
    func isClosedByServer() -> Bool {
        do {
            while try fill() {}
            return true
        } catch {
            return false
        }
    }

    /// Sends a request and reads its reply.
    func exchange(_ request: String) throws -> Reply {
        try send(request)
        return try readReply(head: request.hasPrefix("HEAD "))
    }
}

/// Runs blocking client calls on a thread of their own, for tests where the server itself needs
/// Swift's cooperative pool (handlers off the loop, shutdown) while the test waits on a socket.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}

/// Runs `body` against a live server on an ephemeral port, then shuts it down.
func withServer<T>(
    _ responder: any Responder,
    hooks: [any RequestHook] = [],
    configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    logger given: Logger? = nil,
    _ body: (Int, HTTPServer) async throws -> T
) async throws -> T {
    var configuration = HTTPServerConfiguration()
    configuration.port = 0
    configure(&configuration)
    var logger = given ?? Logger(label: "test.http")
    if given == nil { logger.logLevel = .warning }
    let server = HTTPServer(configuration: configuration, responder: responder, hooks: hooks, logger: logger)
    let port = try server.start()
    do {
        let result = try await body(port, server)
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}

/// The router most server tests use.
func testRouter() -> TestRouter {
    var router = TestRouter()
    router.on(.get, "/hello") { _, _ in
        Response(status: 200, headers: ["Content-Type": "text/plain"], body: .bytes(Array("hello".utf8)))
    }
    router.on(.post, "/echo") { request, _ in
        Response(status: 200, headers: ["Content-Type": "application/octet-stream"], body: .bytes(request.body))
    }
    router.on(.get, "/items/{id}") { request, _ in
        .json(Array(#"{"id":"\#(request.parameters["id"] ?? "")","q":"\#(request.query["q"] ?? "")"}"#.utf8))
    }
    router.on(.get, "/fail") { _, _ in
        struct Secret: Error {}
        throw Secret()
    }
    router.on(.post, "/slow") { request, _ in
        // Long enough for a test's next bytes to arrive while this request is being answered.
        try await Task.sleep(for: .milliseconds(100))
        return Response(status: 200, headers: ["Content-Type": "application/octet-stream"], body: .bytes(request.body))
    }
    router.on(.get, "/stream") { _, _ in
        Response(body: .stream { writer in
            for index in 0..<5 {
                try await writer.write(Array("part\(index);".utf8))
            }
        })
    }
    return router
}

/// The router type the server tests build: no context beyond the core.
typealias TestRouter = Router<BasicRequestContext>

extension Router where Context == BasicRequestContext {
    /// Answers `request` in process, with the route the router named for it.
    func answer(_ request: Request) async throws -> (response: Response, route: String?) {
        var context = BasicRequestContext(core: CoreRequestContext(requestID: "test", logger: Logger(label: "test")))
        let response = try await respond(to: request, context: &context)
        return (response, context.routePattern)
    }
}
