import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A request as the receiver saw it.
public struct ReceivedRequest: Sendable {
    /// The request method, such as `POST`.
    public var method: String
    /// The request target, such as `/hook`.
    public var path: String
    /// Headers with lowercased names, in order.
    public var headers: [(name: String, value: String)]
    /// The body bytes.
    public var body: [UInt8]

    /// The first value of a header, by case-insensitive name.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name == lowered }?.value
    }
}

/// What the receiver answers, after waiting `delay`.
public struct ReceiverReply: Sendable {
    /// The status code.
    public var status: Int
    /// Extra response headers.
    public var headers: [(name: String, value: String)]
    /// The response body.
    public var body: [UInt8]
    /// How long to wait before answering (to play a slow or hanging receiver).
    public var delay: Duration
    /// When set, only this many bytes of the body are sent before the connection is closed, though
    /// `Content-Length` announces all of it (a receiver that breaks off mid-answer).
    public var sentBodyBytes: Int?

    /// Creates a reply.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], delay: Duration = .zero,
                sentBodyBytes: Int? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.sentBodyBytes = sentBodyBytes
    }
}

/// A small blocking HTTP/1.1 server on loopback, a thread per connection, for tests and benchmarks
/// of webhook delivery. It plays the receiver: `handler` decides each answer.
public final class LoopbackReceiver: Sendable {
    /// The port it listens on (chosen by the system).
    public let port: Int
    /// The base URL, such as `http://127.0.0.1:40123`.
    public let url: String
    private let listener: Int32
    private let handler: @Sendable (ReceivedRequest) -> ReceiverReply
    private let recording: Bool
    private let state = Mutex(State())

    private struct State {
        var requests: [ReceivedRequest] = []
        var count = 0
        var accepted = 0
        var connections: Set<Int32> = []
        var stopped = false
        var listenerClosed = false
    }

    /// Listens on `host` (`127.0.0.1` or `::1`) at an ephemeral port; `recording` keeps every request.
    public init(host: String = "127.0.0.1", recording: Bool = true, handler: @escaping @Sendable (ReceivedRequest) -> ReceiverReply) throws {
        let v6 = host.contains(":")
        let fd = socket(v6 ? AF_INET6 : AF_INET, Self.streamType, 0)
        guard fd >= 0 else { throw Self.failure() }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var bound: Int32
        if v6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, host, &address.sin_addr)
            bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        guard bound == 0, listen(fd, 4096) == 0 else {
            close(fd)
            throw Self.failure()
        }
        var storage = sockaddr_in6()
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        _ = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        // sin_port and sin6_port sit at the same offset.
        self.port = Int(UInt16(bigEndian: storage.sin6_port))
        self.url = v6 ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
        self.listener = fd
        self.handler = handler
        self.recording = recording
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "receiver.accept"
        thread.start()
    }

    /// Every request received so far (when recording).
    public var requests: [ReceivedRequest] { state.withLock { $0.requests } }

    /// How many requests were received.
    public var count: Int { state.withLock { $0.count } }

    /// How many connections were accepted.
    public var connectionsAccepted: Int { state.withLock { $0.accepted } }

    /// Stops listening and closes every connection; a second call does nothing.
    ///
    /// Descriptors are shut down under the same lock their threads close them under: a number
    /// closed meanwhile may already belong to another part of the process (another test's server
    /// connection, say), and a stopped listener's number likewise.
    public func stop() {
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            if !state.listenerClosed { shutdown(listener, Int32(SHUT_RDWR)) }
            for fd in state.connections { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                // Out of descriptors or memory for now: wait for some to be freed rather than stop
                // accepting for good (a stopped listener fails with EINVAL and ends the loop).
                if [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(errno) && !state.withLock({ $0.stopped }) {
                    usleep(10_000)
                    continue
                }
                break
            }
            let admitted = state.withLock { state in
                if state.stopped { return false }
                state.accepted += 1
                state.connections.insert(fd)
                return true
            }
            guard admitted else {
                close(fd)
                break
            }
            let thread = Thread { [self] in
                serve(fd)
                state.withLock { state in
                    state.connections.remove(fd)
                    close(fd)
                }
            }
            thread.stackSize = 256 * 1024
            thread.start()
        }
        state.withLock { state in
            state.listenerClosed = true
            close(listener)
        }
    }

    private func serve(_ fd: Int32) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            guard let headerEnd = readUntilHeaderEnd(fd, &buffer, &chunk) else { return }
            guard var request = Self.parseHead(buffer[..<headerEnd]) else { return }
            buffer.removeFirst(headerEnd + 4)
            let length = Int(request.header("content-length") ?? "0") ?? 0
            while buffer.count < length {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { return }
                buffer.append(contentsOf: chunk[..<n])
            }
            request.body = Array(buffer[..<length])
            buffer.removeFirst(length)
            state.withLock { state in
                state.count += 1
                if recording { state.requests.append(request) }
            }
            let reply = handler(request)
            if reply.delay > .zero {
                let (seconds, attoseconds) = reply.delay.components
                Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
            }
            let close = request.header("connection")?.lowercased() == "close"
            let encoded = Self.encode(reply, close: close)
            if let sent = reply.sentBodyBytes {
                _ = write(fd, Array(encoded.prefix(encoded.count - reply.body.count + sent)))
                return
            }
            guard write(fd, encoded), !close else { return }
        }
    }

    private func readUntilHeaderEnd(_ fd: Int32, _ buffer: inout [UInt8], _ chunk: inout [UInt8]) -> Int? {
        var searchFrom = 0
        while true {
            if buffer.count >= 4 {
                var index = searchFrom
                while index + 3 < buffer.count {
                    if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 { return index }
                    index += 1
                }
                searchFrom = max(0, buffer.count - 3)
            }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    private static func parseHead(_ head: ArraySlice<UInt8>) -> ReceivedRequest? {
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return ReceivedRequest(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: [])
    }

    private static func encode(_ reply: ReceiverReply, close: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(reply.status) Status\r\nContent-Length: \(reply.body.count)\r\n"
        if close { head += "Connection: close\r\n" }
        for header in reply.headers { head += "\(header.name): \(header.value)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + reply.body
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            // MSG_NOSIGNAL: a client that gave up (a timeout test) must not kill the process with SIGPIPE.
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    private static var streamType: Int32 {
        #if canImport(Glibc)
        Int32(SOCK_STREAM.rawValue)
        #else
        SOCK_STREAM
        #endif
    }

    private static func failure() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}
