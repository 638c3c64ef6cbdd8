import Foundation
import Glibc
import Logging
import HTTPServer
import Testing

/// No descriptor outlives its connection, whatever way the connection ends.
@Suite struct DescriptorTests {
    /// This process's open sockets whose local port is `port` (listeners and accepted connections).
    static func serverSockets(port: Int) -> Int {
        var inodes = Set<String>()
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9, let local = fields[1].split(separator: ":").last,
                      Int(local, radix: 16) == port else { continue }
                inodes.insert(String(fields[9]))
            }
        }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                  target.hasPrefix("socket:[") else { return false }
            return inodes.contains(String(target.dropFirst(8).dropLast()))
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
        #expect(Self.serverSockets(port: port) == 2)
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
        #expect(Self.serverSockets(port: port) == 2)
        await server.shutdown()
        #expect(Self.serverSockets(port: port) == 0)
    }
}
