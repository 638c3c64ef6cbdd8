@testable import HTTPServer
import Logging
import Synchronization
import Testing

/// Log lines kept in memory, for tests that check what the server logs.
final class CapturedLog: LogHandler, @unchecked Sendable {
    private let lines = Mutex<[(message: String, metadata: Logger.Metadata)]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
             file: String, function: String, line: UInt) {
        // The handler's own metadata (set through `logger[metadataKey:]`) too, as a real backend prints it.
        let merged = self.metadata.merging(metadata ?? [:]) { $1 }
        lines.withLock { $0.append((message.description, merged)) }
    }

    /// The metadata of every line logged with `message`.
    func metadata(of message: String) -> [Logger.Metadata] {
        lines.withLock { $0.filter { $0.message == message }.map(\.metadata) }
    }
    func statuses(of message: String) -> [String] {
        lines.withLock { $0.filter { $0.message == message }.compactMap { $0.metadata["status"]?.description } }
    }
}

@Suite struct RefusalLogTests {
    /// Every refusal has an access line, the 408 for a body too late included.
    @Test func timeoutsAreLoggedLikeOtherRefusals() async throws {
        let log = CapturedLog()
        let logger = Logger(label: "test.http") { _ in log }
        try await withServer(testRouter(), configure: { $0.bodyTimeout = .milliseconds(300) }, logger: logger) { port, _ in
            let client = try RawClient(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
            #expect(try client.readReply().status == 408)
            #expect(try RawClient(port: port).exchange("GET /hello HTTP/1.1\r\n\r\n").status == 400)
        }
        #expect(log.statuses(of: "request refused").sorted() == ["400", "408"])
    }
}

/// An error's answer gets the failed request's context, so what it logs carries the request id.
@Suite struct ErrorContextTests {
    struct StorageDown: HTTPResponseError {
        func response(context: CoreRequestContext) -> Response {
            context.logger.error("storage down")
            return .problem(status: 503, type: "about:blank", title: "Service Unavailable", detail: "later")
        }
    }

    @Test func anErrorsLogLineNamesTheRequest() async throws {
        let log = CapturedLog()
        let logger = Logger(label: "test.http") { _ in log }
        var router = TestRouter()
        router.on(.get, "/down") { _, _ in throw StorageDown() }
        try await withServer(router, logger: logger) { port, _ in
            let reply = try RawClient(port: port).exchange("GET /down HTTP/1.1\r\nHost: x\r\nX-Request-Id: req-42\r\n\r\n")
            #expect(reply.status == 503)
        }
        #expect(log.metadata(of: "storage down").map { $0["request_id"]?.description } == ["req-42"])
    }
}
