import Foundation
import Glibc
@testable import HTTPServer
import Testing

/// Clients that ask for answers and do not read them (or read them too slowly): a budget for queued
/// output over all connections, and the write timeout.
@Suite struct SlowReaderTests {
    static let bigBody = [UInt8](repeating: 0x61, count: 16 << 20)

    static func router() -> TestRouter {
        var router = testRouter()
        router.on(.get, "/big") { _, _ in Response(status: 200, headers: ["Content-Type": "text/plain"], body: .bytes(bigBody)) }
        return router
    }

    /// A loopback client with a small receive buffer (set before connecting, so the window stays small).
    static func slowClient(port: Int, receiveBuffer: Int32 = 4096) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var size = receiveBuffer
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw RawClient.Failure(description: "connect failed: \(errno)") }
        let request = Array("GET /big HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return fd
    }

    /// Reads up to `count` bytes; 0 means the server closed the connection (or reset it).
    static func read(_ fd: Int32, _ count: Int) -> Int {
        var chunk = [UInt8](repeating: 0, count: count)
        let got = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count, 0) }
        return got > 0 ? got : 0
    }

    /// Polls for up to 15 s (a safety net, not a timing assertion).
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<1500 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Reads fast until the server's end of stream; the bytes read (headers included), or nil when
    /// the whole answer came (the server never cut it short).
    static func drain(_ fd: Int32, body: Int = bigBody.count) -> Int? {
        var total = 0
        while true {
            let got = read(fd, 1 << 20)
            if got == 0 { return total }
            total += got
            if total >= body { return nil }
        }
    }

    @Test func stalledWritersAreClosedWhenQueuedOutputPassesTheBudget() async throws {
        try await withServer(Self.router(), configure: { $0.maxQueuedOutputBytes = 8 << 20 }) { port, server in
            // Each leaves most of 16 MiB queued (the kernel takes at most a few MiB); together far
            // past 8 MiB. Without the budget they would hold it for the 30 s write timeout.
            let stalled = try (0..<3).map { _ in try Self.slowClient(port: port) }
            defer { stalled.forEach { Glibc.close($0) } }
            // A client that reads gets its whole answer meanwhile.
            let reader = try RawClient(port: port)
            let reply = try await blocking { try reader.exchange("GET /big HTTP/1.1\r\nHost: x\r\n\r\n") }
            #expect(reply.status == 200 && reply.body.count == Self.bigBody.count)
            // After a second without progress the stalled ones are closed, back under the budget:
            // reading them now ends early.
            try await Task.sleep(for: .milliseconds(1500))
            #expect(try await Self.eventually { server.queuedOutputBytes <= 8 << 20 })
            let cut = stalled.compactMap { Self.drain($0) }
            #expect(cut.count >= 2, "stalled answers were not cut short: \(cut)")
            #expect(try RawClient(port: port).exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
        }
    }

    /// The kernel wakes a writer only once half its send buffer is free, so a client that trickles
    /// reads gives the server no progress, and the write timeout drops the answer.
    @Test func aClientReadingTooSlowlyIsDroppedAfterTheWriteTimeout() async throws {
        try await withServer(Self.router(), configure: { $0.writeTimeout = .seconds(1) }) { port, server in
            let fd = try Self.slowClient(port: port)
            defer { Glibc.close(fd) }
            // 200 bytes every 100 ms for 3 s, then as fast as possible: the answer was cut short.
            for _ in 0..<30 {
                _ = Self.read(fd, 200)
                try await Task.sleep(for: .milliseconds(100))
            }
            let rest = try #require(Self.drain(fd), "the whole answer came")
            #expect(rest < Self.bigBody.count)
            #expect(try await Self.eventually { server.queuedOutputBytes == 0 })
        }
    }
}
