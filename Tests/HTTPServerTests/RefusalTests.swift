import Foundation
import Glibc
@testable import HTTPServer
import Logging
import Testing

/// Every refusal answers the right status, closes that connection, and leaves the server serving others.
@Suite struct RefusalTests {
    static let cases: [(name: String, request: String, status: Int)] = [
        ("garbage request line", "GARBAGE\r\n\r\n", 400),
        ("bare LF line endings", "GET /hello HTTP/1.1\nHost: x\n\n", 400),
        ("header without colon", "GET /hello HTTP/1.1\r\nHost x\r\n\r\n", 400),
        ("space before colon", "GET /hello HTTP/1.1\r\nHost : x\r\n\r\n", 400),
        ("obsolete line folding", "GET /hello HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n  more\r\n\r\n", 400),
        ("bare CR in a value", "GET /hello HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n", 400),
        ("NUL in a value", "GET /hello HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n", 400),
        ("Content-Length and Transfer-Encoding", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        ("two different Content-Lengths", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400),
        ("a Content-Length list that disagrees", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3, 4\r\n\r\nabcd", 400),
        ("non-numeric Content-Length", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400),
        ("negative Content-Length", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400),
        ("bad chunk size", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n", 400),
        ("chunk without its CRLF", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n", 400),
        ("chunked twice", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n", 400),
        // Without chunked last the body's end is unknown: 400 (RFC 9112 §6.3), whatever the coding.
        ("a transfer coding without chunked", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 400),
        ("gzip then chunked", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501),
        ("chunked then gzip", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n", 400),
        ("text after a chunk size", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3 junk\r\nabc\r\n0\r\n\r\n", 400),
        ("a trailer that is not a field", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nGARBAGE LINE\r\n\r\n", 400),
        ("a control character in a trailer", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: a\u{1}b\r\n\r\n", 400),
        ("invalid Host", "GET /hello HTTP/1.1\r\nHost: a b/c@d\r\n\r\n", 400),
        ("two Hosts in HTTP/1.0", "GET /hello HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n", 400),
        ("a fragment in the target", "GET /hello#top HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        ("missing Host", "GET /hello HTTP/1.1\r\n\r\n", 400),
        ("two Hosts", "GET /hello HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("HTTP/2.0 request line", "GET /hello HTTP/2.0\r\nHost: x\r\n\r\n", 505),
        ("unknown expectation", "POST /echo HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nContent-Length: 1\r\n\r\na", 417),
        ("URI over 8 KiB", "GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: x\r\n\r\n", 414),
        ("URI over 8 KiB without an end", "GET /\(String(repeating: "a", count: 9000))", 414),
        ("headers over 64 KiB", "GET /hello HTTP/1.1\r\nHost: x\r\n" + String(repeating: "X-Fill: \(String(repeating: "v", count: 1000))\r\n", count: 70) + "\r\n", 431),
        ("more than 100 header fields", "GET /hello HTTP/1.1\r\nHost: x\r\n" + String(repeating: "X-A: 1\r\n", count: 101) + "\r\n", 431),
        ("Content-Length over the limit", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n", 413),
        ("huge Content-Length", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n", 413),
        ("chunked body over the limit", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n200000\r\n", 413),
        ("Transfer-Encoding in HTTP/1.0", "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        ("asterisk-form for GET", "GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    ]

    @Test(arguments: cases.indices)
    func refusesAndKeepsServing(_ index: Int) async throws {
        let (name, request, status) = Self.cases[index]
        try await withServer(testRouter()) { port, _ in
            let bad = try RawClient(port: port)
            try bad.send(request)
            let reply = try bad.readReply()
            #expect(reply.status == status, "\(name)")
            #expect(reply.headers["Connection"] == "close", "\(name)")
            #expect(reply.headers["Content-Type"] == "application/problem+json", "\(name)")
            #expect(reply.headers["X-Request-Id"]?.count == 15, "\(name)")
            #expect(bad.isClosedByServer(), "\(name)")
            let good = try RawClient(port: port)
            #expect(try good.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").text == "hello", "\(name)")
        }
    }

    /// The server's own problems are `about:blank` by default and take the configured base when one
    /// is set: refusals from the parser, the router's 404, 405 and bad percent-encoding, and a 500.
    @Test func serverProblemsTakeTheConfiguredType() async throws {
        let requests: [(String, Int, String)] = [
            ("GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n", 404, "not-found"),
            ("DELETE /hello HTTP/1.1\r\nHost: x\r\n\r\n", 405, "method-not-allowed"),
            ("GET /items/%zz HTTP/1.1\r\nHost: x\r\n\r\n", 400, "bad-request"),
            ("GET /fail HTTP/1.1\r\nHost: x\r\n\r\n", 500, "internal-server-error"),
            ("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n", 413, "content-too-large"),
            ("GET /hello HTTP/2.0\r\nHost: x\r\n\r\n", 505, "http-version-not-supported"),
        ]
        for base in [nil, "https://example.test/problems/"] {
            try await withServer(testRouter(), configure: { $0.problemTypeBase = base }) { port, _ in
                for (request, status, slug) in requests {
                    let reply = try RawClient(port: port).exchange(request)
                    #expect(reply.status == status, "\(request)")
                    let body = try #require(try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any])
                    #expect(body["type"] as? String == base.map { $0 + slug } ?? "about:blank", "\(body)")
                    #expect(body["status"] as? Int == status, "\(body)")
                }
                // Allow survives the new body.
                let reply = try RawClient(port: port).exchange("DELETE /hello HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(reply.headers["Allow"] == "GET, HEAD, OPTIONS")
                #expect(reply.headers["Content-Length"] == String(reply.body.count))
            }
        }
    }

    @Test func refusesABigBodyWithoutReadingIt() async throws {
        try await withServer(testRouter(), configure: { $0.maxBodyBytes = 1000 }) { port, _ in
            let client = try RawClient(port: port)
            // Only the head is sent: the 413 must come without waiting for the promised body.
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n")
            #expect(try client.readReply().status == 413)
            #expect(client.isClosedByServer())
        }
    }

    /// Bodies still arriving share one budget, charged by the buffers they hold as bytes arrive,
    /// and one client address may hold only a share of it; without it 10,000 slow uploads could
    /// hold 10 GiB with no credentials. A body sent with its head needs no share.
    @Test func refusesABodyPastThePendingBudgetAndGivesTheBudgetBack() async throws {
        // One address here, so its share (twice maxBodyBytes: 2,000) is the limit that counts.
        try await withServer(testRouter(), configure: { $0.maxBodyBytes = 1000; $0.maxPendingBodyBytes = 2000 }) { port, server in
            // Buffers are charged by capacity, which malloc may round up a little per body.
            func pending(_ bytes: Int, bodies: Int = 1) async throws -> Bool {
                try await Self.eventually { (bytes...(bytes + 32 * bodies)).contains(server.pendingBodyBytes) }
            }
            let head = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"
            let first = try RawClient(port: port)
            try first.send(head + String(repeating: "a", count: 600))
            #expect(try await pending(600))
            // Declaring a length takes nothing until the bytes come.
            let declared = try RawClient(port: port)
            try declared.send(head)
            let second = try RawClient(port: port)
            try second.send(head + String(repeating: "b", count: 300))
            let third = try RawClient(port: port)
            try third.send(head + String(repeating: "c", count: 900))
            #expect(try await pending(1800, bodies: 3))
            for refusedHead in [head, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n12c\r\n"] {
                let refused = try RawClient(port: port)
                try refused.send(refusedHead)
                try await Task.sleep(for: .milliseconds(20))
                try refused.send(String(repeating: "r", count: 300))
                let reply = try refused.readReply()
                #expect(reply.status == 503, "\(refusedHead)")
                #expect(reply.headers["Retry-After"] == "1")
                #expect(refused.isClosedByServer())
            }
            #expect(try await pending(1800, bodies: 3))
            // A client that waits for 100 Continue is refused before it sends a body that would not fit.
            let waiting = try RawClient(port: port)
            try waiting.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n")
            #expect(try waiting.readReply().status == 503)
            #expect(try RawClient(port: port).exchange("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nwhole").status == 200)
            // Finished bodies and a connection closed mid-body give their share back.
            try third.send(String(repeating: "c", count: 100))
            #expect(try third.readReply().body.count == 1000)
            try second.send(String(repeating: "b", count: 700))
            #expect(try second.readReply().body.count == 1000)
            first.close()
            #expect(try await pending(0))
            try declared.send(String(repeating: "d", count: 999))
            #expect(try await pending(999))
            try declared.send("d")
            #expect(try declared.readReply().body.count == 1000)
            #expect(try await pending(0))
        }
    }

    /// A body that times out gives its share back with its 408, not once the lingering connection
    /// closes (seconds later, or never for a client that does not read).
    @Test func aTimedOutBodyGivesItsShareBack() async throws {
        try await withServer(testRouter(), configure: { $0.bodyTimeout = .milliseconds(500) }) { port, server in
            let slow = try RawClient(port: port)
            try slow.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" + String(repeating: "a", count: 510))
            #expect(try slow.readReply().status == 408)
            // The connection still lingers here, waiting for this client to close.
            #expect(server.pendingBodyBytes == 0)
        }
    }

    /// Each client address holds at most a sixteenth of the budget (at least two bodies' worth, as
    /// a chunked body's buffer doubles), and the budget is never below that.
    @Test func eachAddressHoldsAShareOfTheBudget() {
        var configuration = HTTPServerConfiguration()
        configuration.maxBodyBytes = 1000
        configuration.maxPendingBodyBytes = 32_000
        let core = ServerCore(configuration: configuration, responder: testRouter(), logger: Logger(label: "test"))
        #expect(core.reserveBody(2000, for: "a"))
        #expect(!core.reserveBody(1, for: "a"))
        for index in 0..<15 { #expect(core.reserveBody(2000, for: "b\(index)")) }
        #expect(!core.reserveBody(1, for: "c"))
        core.releaseBody(2000, for: "a")
        #expect(core.reserveBody(1, for: "c"))
        #expect(core.pendingBodyByteCount == 30_001)

        configuration.maxPendingBodyBytes = 10
        let raised = ServerCore(configuration: configuration, responder: testRouter(), logger: Logger(label: "test"))
        #expect(raised.maxPendingBodyBytes == 2000 && raised.reserveBody(2000, for: "a"))
    }

    /// Refusals after a head was read (413, the pending-body 503, 408) carry what hooks add for that
    /// head, so CORS can make them readable; refusals before a head (400, 431) cannot.
    @Test func refusalsAfterAHeadCarryTheHooksFields() async throws {
        struct Echo: RequestHook {
            func didRespond(to request: Request, context: CoreRequestContext, response: inout Response, elapsed: Duration) {}
            func refusalHeaders(for requestHeaders: HTTPHeaders) -> [(String, String)] {
                [("X-Seen-Origin", requestHeaders["Origin"] ?? "none"), ("X-Bad", "a\r\nInjected: yes")]
            }
        }
        try await withServer(testRouter(), hooks: [Echo()], configure: {
            $0.maxBodyBytes = 1000; $0.maxPendingBodyBytes = 2000; $0.bodyTimeout = .milliseconds(500)
        }) { port, _ in
            let tooLarge = try RawClient(port: port).exchange("POST /echo HTTP/1.1\r\nHost: x\r\nOrigin: https://a.example\r\nContent-Length: 1001\r\n\r\n")
            #expect(tooLarge.status == 413)
            #expect(tooLarge.headers["X-Seen-Origin"] == "https://a.example")
            #expect(tooLarge.headers["X-Bad"] == nil && tooLarge.headers["Injected"] == nil)
            let chunks = try RawClient(port: port).exchange(
                "POST /echo HTTP/1.1\r\nHost: x\r\nOrigin: https://c.example\r\nTransfer-Encoding: chunked\r\n\r\n3e9\r\n")
            #expect(chunks.status == 413 && chunks.headers["X-Seen-Origin"] == "https://c.example")
            let slow = try RawClient(port: port)
            try slow.send("POST /echo HTTP/1.1\r\nHost: x\r\nOrigin: https://b.example\r\nContent-Length: 10\r\n\r\nabc")
            let timedOut = try slow.readReply()
            #expect(timedOut.status == 408 && timedOut.headers["X-Seen-Origin"] == "https://b.example")
            let malformed = try RawClient(port: port).exchange("GARBAGE\r\n\r\n")
            #expect(malformed.status == 400 && malformed.headers["X-Seen-Origin"] == nil)
        }
    }

    /// Polls `condition` for up to five seconds.
    static func eventually(_ condition: () async -> Bool) async throws -> Bool {
        for _ in 0..<500 {
            if await condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test func answers408ToAClientTooSlowWithItsHead() async throws {
        try await withServer(testRouter(), configure: { $0.headerTimeout = .milliseconds(300) }) { port, _ in
            let client = try RawClient(port: port)
            try client.send("GET /hello HTTP/1.1\r\nHost:")
            let reply = try client.readReply()
            #expect(reply.status == 408)
            #expect(client.isClosedByServer())
            #expect(try RawClient(port: port).exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
        }
    }

    @Test func answers408ToAClientTooSlowWithItsBody() async throws {
        try await withServer(testRouter(), configure: { $0.bodyTimeout = .milliseconds(300) }) { port, _ in
            let client = try RawClient(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
            #expect(try client.readReply().status == 408)
            #expect(client.isClosedByServer())
        }
    }

    @Test func closesAnIdleKeepAliveConnection() async throws {
        try await withServer(testRouter(), configure: { $0.idleTimeout = .milliseconds(300) }) { port, server in
            let client = try RawClient(port: port)
            #expect(try client.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
            // Closed without a response: no request had started.
            #expect(client.isClosedByServer())
        }
    }

    @Test func closesAConnectionThatNeverSendsAnything() async throws {
        try await withServer(testRouter(), configure: { $0.headerTimeout = .milliseconds(300) }) { port, _ in
            let client = try RawClient(port: port)
            #expect(client.isClosedByServer())
        }
    }

    @Test func closesConnectionsBeyondTheLimitAtOnce() async throws {
        try await withServer(testRouter(), configure: { $0.maxConnections = 2; $0.eventLoops = 1 }) { port, server in
            let first = try RawClient(port: port)
            let second = try RawClient(port: port)
            #expect(try first.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
            #expect(try second.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
            let third = try RawClient(port: port)
            #expect(third.isClosedByServer())
            try first.send("GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            _ = try first.readReply()
            while server.connectionCount > 1 {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(try RawClient(port: port).exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
        }
    }
}

/// `HTTPServerConfiguration.headers` go on every answer: a handler's, a 404 and a refusal.
@Suite struct FixedHeaderTests {
    @Test func configuredHeadersAreOnEveryResponse() async throws {
        try await withServer(testRouter(), configure: {
            $0.headers = [("X-Content-Type-Options", "nosniff"), ("X-Bad", "a\r\nInjected: yes")]
        }) { port, _ in
            let client = try RawClient(port: port)
            for request in ["GET /hello HTTP/1.1\r\nHost: x\r\n\r\n", "GET /missing HTTP/1.1\r\nHost: x\r\n\r\n"] {
                let reply = try client.exchange(request)
                #expect(reply.headers["X-Content-Type-Options"] == "nosniff")
                #expect(reply.headers["X-Bad"] == nil && reply.headers["Injected"] == nil)
            }
            let refused = try RawClient(port: port)
            try refused.send("GARBAGE\r\n\r\n")
            let reply = try refused.readReply()
            #expect(reply.status == 400)
            #expect(reply.headers["X-Content-Type-Options"] == "nosniff")
        }
    }
}
