import Foundation
import Glibc
import Logging
import HTTPServer
import Testing

/// No descriptor outlives its connection, whatever way the connection ends.
@Suite struct DescriptorTests {
    /// This process's open sockets whose local port is `port` (the listener and accepted connections).
    /// Asks each descriptor itself (getsockname), as /proc/net/tcp can skip rows while it changes.
    static func serverSockets(port: Int) -> Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { Int32($0) }.filter { fd in
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let ok = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
            }
            guard ok else { return false }
            let family = Int32(address.ss_family)
            return withUnsafePointer(to: &address) { pointer in
                if family == AF_INET {
                    return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) } == port
                }
                if family == AF_INET6 {
                    return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) } == port
                }
                return false
            }
        }.count
    }

    @Test func closesEveryDescriptorAfterRefusalsTimeoutsAndShutdown() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.eventLoops = 2
        configuration.headerTimeout = .milliseconds(200)
        configuration.maxConnections = 50
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let server = HTTPServer(configuration: configuration, responder: testRouter(), logger: logger)
        let port = try server.start()
        #expect(Self.serverSockets(port: port) == 1)
        for (_, request, _) in RefusalTests.cases {
            let client = try RawClient(port: port)
            try client.send(request)
            _ = try client.readReply()
        }
        let silent = try RawClient(port: port)
        #expect(silent.isClosedByServer())
        var idle: [RawClient] = []
        for _ in 0..<60 {
            idle.append(try RawClient(port: port))
        }
        let answered = try RawClient(port: port)
        _ = try? answered.exchange("GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        idle.removeAll()
        while server.connectionCount > 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(Self.serverSockets(port: port) == 1)
        await server.shutdown()
        #expect(Self.serverSockets(port: port) == 0)
    }
}
