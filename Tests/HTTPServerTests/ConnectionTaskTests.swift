@testable import HTTPServer
import Logging
import Testing

/// Each connection's requests are answered by one task that waits between requests; these check the
/// task's bookkeeping over real sockets: kept across requests, parked while idle, ended on close and
/// at shutdown, capped per loop.
@Suite struct ConnectionTaskTests {
    @Test func oneTaskAnswersEveryRequestOfAConnectionAndEndsWhenTheClientCloses() async throws {
        try await withServer(testRouter(), configure: { $0.eventLoops = 1 }) { port, server in
            var clients: [RawClient] = []
            for _ in 0..<5 {
                let client = try RawClient(port: port)
                #expect(try client.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
                clients.append(client)
            }
            #expect(try await eventually { await server.parkedTaskCount() == 5 })
            for index in 0..<10 {
                let reply = try clients[index % 5].exchange("GET /items/\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(reply.text == #"{"id":"\#(index)","q":""}"#)
            }
            // Fifteen requests, five tasks: a kept-alive connection's next request resumes its task.
            #expect(server.connectionTasks.started == 5)
            clients.removeAll()
            #expect(try await eventually { await server.parkedTaskCount() == 0 && server.connectionTasks.running == 0 })
        }
    }

    @Test func keepsServingIdleConnectionsPastTheCap() async throws {
        try await withServer(testRouter(), configure: { $0.eventLoops = 1; $0.maxParkedTasksPerLoop = 3 }) { port, server in
            var clients = try (0..<8).map { _ in try RawClient(port: port) }
            for client in clients {
                #expect(try client.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
            }
            #expect(try await eventually { await server.parkedTaskCount() == 3 && server.connectionTasks.running == 3 })
            // Connections whose task ended start a new one; those still parked resume theirs.
            for (index, client) in clients.enumerated() {
                #expect(try client.exchange("GET /items/\(index) HTTP/1.1\r\nHost: x\r\n\r\n").text == #"{"id":"\#(index)","q":""}"#)
            }
            #expect(try await eventually { await server.parkedTaskCount() == 3 && server.connectionTasks.running == 3 })
            #expect(server.connectionTasks.started == 8 + 5)
            clients.removeAll()
            #expect(try await eventually { await server.parkedTaskCount() == 0 && server.connectionTasks.running == 0 })
        }
    }

    /// A parked task is not an in-flight request: shutdown closes its connection at once, and the task ends.
    @Test func shutdownEndsParkedTasks() async throws {
        let (server, client) = try await withServer(testRouter(), configure: { $0.eventLoops = 1 }) { port, server in
            let client = try RawClient(port: port)
            #expect(try client.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
            #expect(try await eventually { await server.parkedTaskCount() == 1 })
            return (server, client)
        }
        #expect(client.isClosedByServer())
        #expect(try await eventually { server.connectionTasks.running == 0 })
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
