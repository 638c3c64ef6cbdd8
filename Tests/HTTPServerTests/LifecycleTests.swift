import Glibc
import HTTPServer
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// Graceful shutdown, the service group, streaming backpressure and the access log.
@Suite struct LifecycleTests {
    /// A gate a handler waits on until the test opens it.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, entered: Int, waiters: [CheckedContinuation<Void, Never>])>((false, 0, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state in
                    state.entered += 1
                    if !state.open { state.waiters.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }

        var entered: Int { state.withLock { $0.entered } }

        func open() {
            let waiters = state.withLock { state in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            waiters.forEach { $0.resume() }
        }
    }

    static func gatedRouter(_ gate: Gate) -> TestRouter {
        var router = testRouter()
        router.on(.get, "/slow") { _, _ in
            await gate.wait()
            return Response(body: .bytes(Array("done".utf8)))
        }
        return router
    }

    @Test func finishesInFlightRequestsAndClosesIdleOnesOnShutdown() async throws {
        let gate = Gate()
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        let server = HTTPServer(configuration: configuration, responder: Self.gatedRouter(gate), logger: Logger(label: "test"))
        let port = try server.start()
        let idle = try RawClient(port: port)
        #expect(try idle.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
        let busy = try RawClient(port: port)
        try busy.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        while gate.entered == 0 { try await Task.sleep(for: .milliseconds(5)) }

        let stopping = Task { await server.shutdown() }
        #expect(try await blocking { idle.isClosedByServer() })
        // Each loop closes its own listener; wait until none accepts any more.
        while (try? RawClient(port: port)) != nil {}
        gate.open()
        let reply = try await blocking { try busy.readReply() }
        #expect(reply.text == "done")
        #expect(reply.headers["Connection"] == "close")
        await stopping.value
        #expect(server.connectionCount == 0)
    }

    @Test func closesWhatIsLeftAtTheDeadline() async throws {
        let gate = Gate()
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.shutdownDeadline = .milliseconds(200)
        let server = HTTPServer(configuration: configuration, responder: Self.gatedRouter(gate), logger: Logger(label: "test"))
        let port = try server.start()
        let stuck = try RawClient(port: port)
        try stuck.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        while gate.entered == 0 { try await Task.sleep(for: .milliseconds(5)) }
        await server.shutdown()
        #expect(stuck.isClosedByServer())
        #expect(server.connectionCount == 0)
        gate.open()
    }

    @Test func runsAndStopsInAServiceGroup() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        let logger = Logger(label: "test")
        let server = HTTPServer(configuration: configuration, responder: testRouter(), logger: logger)
        let port = try server.start()
        let group = ServiceGroup(services: [server], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            #expect(try RawClient(port: port).exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").text == "hello")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(throws: (any Error).self) { try RawClient(port: port) }
    }

    @Test func streamingWaitsForASlowReader() async throws {
        let written = Atomic<Int>(0)
        let total = 32 * 1024 * 1024
        var router = TestRouter()
        router.on(.get, "/big") { _, _ in
            Response(body: .stream { writer in
                let piece = [UInt8](repeating: UInt8(ascii: "z"), count: 64 * 1024)
                for _ in 0..<(total / piece.count) {
                    try await writer.write(piece)
                    written.add(piece.count, ordering: .relaxed)
                }
            })
        }
        try await withServer(router) { port, _ in
            let client = try RawClient(port: port)
            var small: Int32 = 64 * 1024
            setsockopt(client.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            try client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            while written.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(5)) }
            // Without backpressure the handler would have queued all 32 MiB by now.
            try await Task.sleep(for: .milliseconds(300))
            #expect(written.load(ordering: .relaxed) < total)
            let reply = try client.readReply()
            #expect(reply.body.count == total)
            #expect(written.load(ordering: .relaxed) == total)
        }
    }

    /// One write far over the high-water mark goes out in pieces of at most the mark, each waiting for
    /// the reader, so a caller's large write (here one 32 MiB chunk) is not queued whole for as long
    /// as the client dawdles.
    @Test func oneLargeWriteWaitsForASlowReaderToo() async throws {
        let total = 32 * 1024 * 1024
        let returned = Atomic<Bool>(false)
        var router = TestRouter()
        router.on(.get, "/big") { _, _ in
            Response(body: .stream { writer in
                try await writer.write([UInt8](repeating: UInt8(ascii: "y"), count: total))
                returned.store(true, ordering: .relaxed)
            })
        }
        try await withServer(router) { port, _ in
            let client = try RawClient(port: port)
            var small: Int32 = 64 * 1024
            setsockopt(client.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            try client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            try await Task.sleep(for: .milliseconds(300))
            let returnedEarly = returned.load(ordering: .relaxed)
            #expect(!returnedEarly)
            let reply = try client.readReply()
            #expect(reply.body.count == total && reply.body.allSatisfy { $0 == UInt8(ascii: "y") })
            #expect(reply.chunkSizes.count == total / (64 * 1024))  // StreamWriter.highWaterMark
            #expect(reply.chunkSizes.allSatisfy { $0 <= 64 * 1024 })
            let returnedAtEnd = returned.load(ordering: .relaxed)
            #expect(returnedAtEnd)
        }
    }

    @Test func dropsAStreamWhoseClientStopsReading() async throws {
        let failed = Atomic<Bool>(false)
        var router = TestRouter()
        router.on(.get, "/endless") { _, _ in
            Response(body: .stream { writer in
                let piece = [UInt8](repeating: 1, count: 64 * 1024)
                do {
                    while true { try await writer.write(piece) }
                } catch {
                    failed.store(true, ordering: .relaxed)
                    throw error
                }
            })
        }
        try await withServer(router, configure: { $0.writeTimeout = .milliseconds(300) }) { port, server in
            let client = try RawClient(port: port)
            try client.send("GET /endless HTTP/1.1\r\nHost: x\r\n\r\n")
            while !failed.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(10)) }
            while server.connectionCount > 0 { try await Task.sleep(for: .milliseconds(10)) }
        }
    }

    @Test func runsHandlersOffTheLoopWhenAsked() async throws {
        try await withServer(testRouter(), configure: { $0.handlersOnEventLoop = false }) { port, _ in
            let client = try RawClient(port: port)
            var batch = ""
            for index in 0..<20 {
                batch += "GET /items/\(index) HTTP/1.1\r\nHost: x\r\n\r\n"
            }
            try client.send(batch + "GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            let texts = try await blocking { try (0..<21).map { _ in try client.readReply().text } }
            #expect(texts == (0..<20).map { #"{"id":"\#($0)","q":""}"# } + ["part0;part1;part2;part3;part4;"])
        }
    }

    @Test func writesOneAccessLogLinePerRequest() async throws {
        let records = Records()
        var logger = Logger(label: "test.access") { _ in CapturingHandler(records: records) }
        logger.logLevel = .info
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        let server = HTTPServer(configuration: configuration, responder: testRouter(), logger: logger)
        let port = try server.start()
        let client = try RawClient(port: port)
        _ = try client.exchange("GET /items/5 HTTP/1.1\r\nHost: x\r\nX-Request-Id: log-1\r\n\r\n")
        _ = try client.exchange("GET /nowhere HTTP/1.1\r\nHost: x\r\nX-Request-Id: log-2\r\n\r\n")
        await server.shutdown()
        let lines = records.all.filter { $0["route"] != nil }
        #expect(lines.count == 2)
        #expect(lines.first?["route"] == "/items/{id}")
        #expect(lines.first?["status"] == "200")
        #expect(lines.first?["method"] == "GET")
        #expect(lines.first?["request_id"] == "log-1")
        #expect(lines.first?["bytes"] == "17")
        #expect(lines.first?["duration_ms"] != nil)
        #expect(lines.last?["status"] == "404")
    }

    final class Records: Sendable {
        private let entries = Mutex<[Logger.Metadata]>([])
        func append(_ metadata: Logger.Metadata) { entries.withLock { $0.append(metadata) } }
        var all: [Logger.Metadata] { entries.withLock { $0 } }
    }

    struct CapturingHandler: LogHandler {
        let records: Records
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            records.append(event.metadata ?? [:])
        }
    }
}
