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
