import Glibc
import Testing

/// Smaller protocol points from the hostile-client review.
@Suite struct ProtocolEdgeTests {
    @Test func laterHTTP1MinorsAreAnsweredAs11() async throws {
        try await withServer(testRouter()) { port, _ in
            let client = try RawClient(port: port)
            // As 1.1: Host is required and chunked bodies are read (1.0 has neither rule).
            #expect(try client.exchange("GET /hello HTTP/1.9\r\n\r\n").status == 400)
            let chunked = try RawClient(port: port)
            let reply = try chunked.exchange("POST /echo HTTP/1.2\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
            #expect(reply.status == 200 && reply.text == "abc")
        }
    }

    @Test func validHostsExtensionsAndTrailersAreRead() async throws {
        try await withServer(testRouter()) { port, _ in
            for host in ["", "[::1]:8080", "example.org:80", "xn--bcher-kva.example", "[fe80::1%25eth0]:8080",
                         "example.com.", "my_host.local", "bücher.example", "localhost:"] {
                #expect(try RawClient(port: port).exchange("GET /hello HTTP/1.1\r\nHost: \(host)\r\n\r\n").status == 200, "\(host)")
            }
            let reply = try RawClient(port: port).exchange(
                "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3 ;a=b\r\nabc\r\n"
                    + "2;n=\"a b;c\"\r\nde\r\n1\t\r\nf\r\n0\r\nX-T: v\t1\r\nX-Empty:\r\n\r\n")
            #expect(reply.status == 200 && reply.text == "abcdef")
        }
    }

    /// A half-close means only that the client sends nothing more: the requests it sent before are
    /// answered, then the server closes in order (a reset can destroy answers still in flight).
    @Test func aHalfClosedClientGetsEveryAnswerAndAnOrderlyClose() async throws {
        try await withServer(testRouter()) { port, _ in
            try await blocking {
                let client = try RawClient(port: port)
                try client.send("POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\none")
                // Arrives while the first is being answered.
                usleep(20_000)
                try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\ntwo")
                client.shutdownWrite()
                #expect(try client.readReply().text == "one")
                #expect(try client.readReply().text == "two")
                #expect(client.isClosedInOrder())
            }
        }
    }

    @Test func aHalfClosedPartialRequestIsClosedWithoutAnAnswer() async throws {
        try await withServer(testRouter()) { port, _ in
            try await blocking {
                let client = try RawClient(port: port)
                try client.send("GET /hello HTTP/1.1\r\nHo")
                client.shutdownWrite()
                // Closed at the end of its input, not left to the 10 s head timeout's 408.
                #expect(client.isClosedInOrder())
                #expect(client.unreadBytes == 0)
            }
        }
    }

    @Test func aRefusalEchoesTheClientsRequestID() async throws {
        try await withServer(testRouter()) { port, _ in
            let reply = try RawClient(port: port).exchange(
                "POST /echo HTTP/1.1\r\nHost: x\r\nX-Request-Id: trace-42\r\nContent-Length: 2000000\r\n\r\n")
            #expect(reply.status == 413)
            #expect(reply.headers["X-Request-Id"] == "trace-42")
        }
    }

    /// Bytes that arrive after a `Connection: close` request are dropped, without the reset that
    /// closing over them would send.
    @Test func bytesAfterConnectionCloseDoNotResetTheAnswer() async throws {
        try await withServer(testRouter()) { port, _ in
            try await blocking {
                let client = try RawClient(port: port)
                try client.send("POST /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 3\r\n\r\none")
                usleep(20_000)
                try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
                client.shutdownWrite()
                #expect(try client.readReply().text == "one")
                #expect(client.isClosedInOrder())
            }
        }
    }

    @Test func zeroPaddedChunkSizesAreRead() async throws {
        try await withServer(testRouter()) { port, _ in
            let reply = try RawClient(port: port).exchange(
                "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0000000000000000000002\r\nab\r\n0\r\n\r\n")
            #expect(reply.status == 200 && reply.text == "ab")
            let huge = try RawClient(port: port).exchange(
                "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n100000000000000\r\nab")
            #expect(huge.status == 413)
            let padded = try RawClient(port: port).exchange(
                "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\(String(repeating: "0", count: 100))2\r\nab")
            #expect(padded.status == 400)
        }
    }
}
