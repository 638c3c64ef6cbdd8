@testable import HTTPServer
import Testing

/// The request decoder in-process: every split point, pipelining, header details.
@Suite struct DecoderTests {
    /// Feeds `pieces` the way a connection does (keeping unconsumed bytes) and collects the outcome.
    static func decode(_ pieces: [[UInt8]], limits: ParserLimits = ParserLimits()) -> (requests: [(RequestHead, [UInt8])], failure: ParseError?) {
        var decoder = RequestDecoder(limits: limits)
        var pending: [UInt8] = []
        var requests: [(RequestHead, [UInt8])] = []
        for piece in pieces {
            pending += piece
            var offset = 0
            loop: while true {
                let (used, event) = pending.withUnsafeBytes { decoder.decode(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
                offset += used
                switch event {
                case .needMore: break loop
                case .head: continue
                case .request(let head, let body): requests.append((head, body))
                case .failure(let error): return (requests, error)
                case .streamHead, .bodyPart: Issue.record("no route streams here"); return (requests, nil)
                }
            }
            pending.removeFirst(offset)
        }
        return (requests, nil)
    }

    static let pipelined = Array((
        "\r\nPOST /a?x=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
        + "POST /b HTTP/1.1\r\nhost: h\r\ntransfer-encoding: Chunked\r\n\r\n3;ext=1\r\nabc\r\nA\r\n0123456789\r\n0\r\nTrailer: t\r\n\r\n"
        + "GET /c HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
    ).utf8)

    @Test func decodesTheSameRequestsWhereverTheBytesAreSplit() {
        for split in 0...Self.pipelined.count {
            let (requests, failure) = Self.decode([Array(Self.pipelined[..<split]), Array(Self.pipelined[split...])])
            #expect(failure == nil, "split at \(split)")
            #expect(requests.map(\.0.path) == ["/a", "/b", "/c"], "split at \(split)")
            #expect(requests.map { String(decoding: $0.1, as: UTF8.self) } == ["hello", "abc0123456789", ""], "split at \(split)")
        }
    }

    @Test func decodesByteByByte() {
        let (requests, failure) = Self.decode(Self.pipelined.map { [$0] })
        #expect(failure == nil)
        #expect(requests.count == 3)
        #expect(requests[0].0.query == "x=1")
        #expect(requests[2].0.keepAlive)
        #expect(requests[2].0.minorVersion == 0)
    }

    @Test func parsesHeaderFieldsExactly() {
        let raw = Array("GET / HTTP/1.1\r\nHost: h\r\nX-Pad: \t spaced value \t\r\nX-Multi: 1\r\nx-multi: 2\r\nX-Latin: caf\u{e9}\r\n\r\n".utf8)
        let (requests, failure) = Self.decode([raw])
        #expect(failure == nil)
        let headers = requests.first?.0.headers ?? HTTPHeaders()
        #expect(headers["x-pad"] == "spaced value")
        #expect(headers.values("X-MULTI") == ["1", "2"])
        #expect(headers["X-Latin"] == "caf\u{e9}")
        #expect(requests.first?.0.keepAlive == true)
    }

    @Test func acceptsRepeatedIdenticalContentLengths() {
        let raw = Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nok".utf8)
        let (requests, failure) = Self.decode([raw])
        #expect(failure == nil)
        #expect(requests.first?.1 == Array("ok".utf8))
    }

    @Test func refusesChunksBeyondTheBodyLimitBeforeReadingThem() {
        var limits = ParserLimits()
        limits.maxBodyBytes = 10
        let raw = Array("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n6\r\n".utf8)
        #expect(Self.decode([raw], limits: limits).failure?.status == 413)
    }

    /// Any number of empty lines before a request line are skipped (RFC 9112 §2.2), wherever the
    /// bytes are split; two in a row must not read as the end of an empty head.
    @Test func skipsEmptyLinesBeforeTheRequestLine() {
        let bytes = Array("\r\n\r\n\r\nGET /x HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        for split in 0...bytes.count {
            let (requests, failure) = Self.decode([Array(bytes[..<split]), Array(bytes[split...])])
            #expect(failure == nil && requests.map(\.0.path) == ["/x"], "split at \(split)")
        }
    }

    @Test func parsesQueriesAndPercentEncoding() {
        let query = QueryParameters(query: "a=1&b=x+y%21&bad=%zz&flag&a=2&=v")
        #expect(query["a"] == "1")
        #expect(query.values("a") == ["1", "2"])
        #expect(query["b"] == "x y!")
        #expect(query["bad"] == nil)
        #expect(query.isMalformed && query.isMalformed("bad") && !query.isMalformed("a"))
        #expect(!QueryParameters(query: "a=1&b=%21&&c").isMalformed)
        #expect(query["flag"] == "")
        #expect(PercentDecoding.decode("%e2%82%ac".utf8, plusAsSpace: false) == "\u{20ac}")
        #expect(PercentDecoding.decode("%ff".utf8, plusAsSpace: false) == nil)
        #expect(PercentDecoding.decode("a+b".utf8, plusAsSpace: false) == "a+b")
    }

    @Test func formatsAndParsesHTTPDates() {
        #expect(HTTPDate.format(epochSeconds: 784111777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784111777)
        #expect(HTTPDate.parse("yesterday") == nil)
    }
}
