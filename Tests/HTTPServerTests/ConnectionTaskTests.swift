@testable import HTTPServer
import Logging
import Testing

/// Each connection's requests are answered by one task that waits between requests; these check the
/// task's bookkeeping over real sockets: parked while idle, ended on close, capped per loop.
@Suite struct ConnectionTaskTests {
    @Test func parksOneTaskPerIdleConnectionAndEndsItWhenTheClientCloses() async throws {
        try await withServer(testRouter(), configure: { $0.eventLoops = 1 }) { port, server in
            var clients: [RawClient] = []
            for _ in 0..<5 {
                let client = try RawClient(port: port)
                #expect(try client.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
                clients.append(client)
            }
            #expect(try await eventually { await server.parkedTaskCount() == 5 })
            // The same task answers the next request on a kept-alive connection.
            #expect(try clients[0].exchange("GET /items/7 HTTP/1.1\r\nHost: x\r\n\r\n").text == #"{"id":"7","q":""}"#)
            clients.removeAll()
            #expect(try await eventually { await server.parkedTaskCount() == 0 })
        }
    }

    @Test func keepsServingIdleConnectionsPastTheCap() async throws {
        try await withServer(testRouter(), configure: { $0.eventLoops = 1; $0.maxParkedTasksPerLoop = 3 }) { port, server in
            let clients = try (0..<8).map { _ in try RawClient(port: port) }
            for client in clients {
                #expect(try client.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
            }
            #expect(try await eventually { await server.parkedTaskCount() == 3 })
            // Connections whose task ended start a new one; those still parked resume theirs.
            for (index, client) in clients.enumerated() {
                #expect(try client.exchange("GET /items/\(index) HTTP/1.1\r\nHost: x\r\n\r\n").text == #"{"id":"\#(index)","q":""}"#)
            }
            #expect(await server.parkedTaskCount() <= 3)
        }
    }

    /// A parked task is not an in-flight request: shutdown closes its connection at once.
    @Test func shutsDownWithoutWaitingForParkedTasks() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.eventLoops = 1
        let server = HTTPServer(configuration: configuration, responder: testRouter(), logger: Logger(label: "test.http"))
        let port = try server.start()
        let client = try RawClient(port: port)
        #expect(try client.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
        #expect(try await eventually { await server.parkedTaskCount() == 1 })
        let started = ContinuousClock.now
        await server.shutdown()
        #expect(ContinuousClock.now - started < configuration.shutdownDeadline)
        #expect(client.isClosedByServer())
    }

    /// Polls `condition` for up to five seconds.
    private func eventually(_ condition: () async -> Bool) async throws -> Bool {
        for _ in 0..<500 {
            if await condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}
