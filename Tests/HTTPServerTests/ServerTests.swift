import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPServer
import Logging
import Testing

@Suite struct ServerTests {
    @Test func servesAGetOverARealSocket() async throws {
        try await withServer(testRouter()) { port, _ in
            let client = try RawClient(port: port)
            let reply = try client.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(reply.status == 200)
            #expect(reply.text == "hello")
            #expect(reply.headers["Content-Length"] == "5")
            #expect(reply.headers["Date"]?.hasSuffix("GMT") == true)
            let first = try #require(reply.headers["X-Request-Id"])
            let second = try #require(try client.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").headers["X-Request-Id"])
            #expect(first.utf8.count == 15 && second.utf8.count == 15)
            #expect(first != second)
        }
    }

    @Test func keepsTheConnectionAliveForSeveralRequests() async throws {
        try await withServer(testRouter()) { port, _ in
            let client = try RawClient(port: port)
            for index in 0..<10 {
                let reply = try client.exchange("GET /items/\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(reply.status == 200)
                #expect(reply.text == #"{"id":"\#(index)","q":""}"#)
            }
        }
    }

    @Test func answersPipelinedRequestsInOrder() async throws {
        try await withServer(testRouter()) { port, _ in
            let client = try RawClient(port: port)
            var batch = ""
            for index in 0..<20 {
                batch += "GET /items/\(index)?q=a+b%21 HTTP/1.1\r\nHost: x\r\n\r\n"
            }
            batch += "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
            try client.send(batch)
            for index in 0..<20 {
                let reply = try client.readReply()
                #expect(reply.text == #"{"id":"\#(index)","q":"a b!"}"#)
            }
            #expect(try client.readReply().text == "abc")
        }
    }

    @Test func echoesAPostBody() async throws {
        try await withServer(testRouter()) { port, _ in
            let client = try RawClient(port: port)
            let body = String(repeating: "x", count: 100_000)
            let reply = try client.exchange("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            #expect(reply.status == 200)
            #expect(reply.body.count == 100_000)
        }
    }

    @Test func echoesTheClientsRequestID() async throws {
        try await withServer(testRouter()) { port, _ in
            let client = try RawClient(port: port)
            let reply = try client.exchange("GET /hello HTTP/1.1\r\nHost: x\r\nX-Request-Id: abc-123\r\n\r\n")
            #expect(reply.headers["X-Request-Id"] == "abc-123")
        }
    }

    @Test func closesAfterConnectionClose() async throws {
        try await withServer(testRouter()) { port, _ in
            let client = try RawClient(port: port)
            let reply = try client.exchange("GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(reply.headers["Connection"] == "close")
            #expect(client.isClosedByServer())
        }
    }

    @Test func speaksHTTP10WithAndWithoutKeepAlive() async throws {
        try await withServer(testRouter()) { port, _ in
            let plain = try RawClient(port: port)
            let first = try plain.exchange("GET /hello HTTP/1.0\r\n\r\n")
            #expect(first.text == "hello")
            #expect(plain.isClosedByServer())

            let kept = try RawClient(port: port)
            for _ in 0..<3 {
                let reply = try kept.exchange("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                #expect(reply.headers["Connection"] == "keep-alive")
                #expect(reply.text == "hello")
            }
        }
    }

    @Test func answersHeadWithoutABody() async throws {
        try await withServer(testRouter()) { port, _ in
            let client = try RawClient(port: port)
            let reply = try client.exchange("HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(reply.status == 200)
            #expect(reply.headers["Content-Length"] == "5")
            let next = try client.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(next.text == "hello")
        }
    }

    @Test func acceptsAbsoluteFormTargets() async throws {
        try await withServer(testRouter()) { port, _ in
            let client = try RawClient(port: port)
            let reply = try client.exchange("GET http://example.test/items/7?q=z HTTP/1.1\r\nHost: example.test\r\n\r\n")
            #expect(reply.text == #"{"id":"7","q":"z"}"#)
        }
    }

    @Test func decodesPathParameters() async throws {
        try await withServer(testRouter()) { port, _ in
            let client = try RawClient(port: port)
            let reply = try client.exchange("GET /items/a%20b%2Fc HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(reply.text == #"{"id":"a b/c","q":""}"#)
        }
    }

    @Test func turnsAThrownErrorIntoAProblemWithoutInternals() async throws {
        try await withServer(testRouter()) { port, _ in
            let client = try RawClient(port: port)
            let reply = try client.exchange("GET /fail HTTP/1.1\r\nHost: x\r\nX-Request-Id: r1\r\n\r\n")
            #expect(reply.status == 500)
            #expect(reply.headers["Content-Type"] == "application/problem+json")
            #expect(!reply.text.contains("Secret"))
            #expect(reply.text.contains("r1"))
            #expect(try client.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
        }
    }

    @Test func usesTheResponseOfAnHTTPResponseError() async throws {
        struct Teapot: HTTPResponseError {
            func response(context: CoreRequestContext) -> Response {
                .problem(status: 418, type: "urn:teapot", title: "Teapot", detail: "short and stout")
            }
        }
        var router = TestRouter()
        router.on(.get, "/tea") { _, _ in throw Teapot() }
        try await withServer(router) { port, _ in
            let reply = try RawClient(port: port).exchange("GET /tea HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(reply.status == 418)
            #expect(reply.text.contains("short and stout"))
        }
    }

    @Test func streamsAChunkedBody() async throws {
        try await withServer(testRouter()) { port, _ in
            let client = try RawClient(port: port)
            let reply = try client.exchange("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(reply.headers["Transfer-Encoding"] == "chunked")
            #expect(reply.text == "part0;part1;part2;part3;part4;")
            #expect(try client.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").text == "hello")
        }
    }

    @Test func answers404And405AsProblems() async throws {
        try await withServer(testRouter()) { port, _ in
            let client = try RawClient(port: port)
            let missing = try client.exchange("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(missing.status == 404)
            #expect(missing.headers["Content-Type"] == "application/problem+json")
            let wrong = try client.exchange("DELETE /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(wrong.status == 405)
            #expect(wrong.headers["Allow"] == "GET, HEAD, OPTIONS")
        }
    }

    @Test func servesURLSession() async throws {
        try await withServer(testRouter()) { port, _ in
            let url = URL(string: "http://127.0.0.1:\(port)/items/42?q=hi")!
            let (data, response) = try await URLSession.shared.data(from: url)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == #"{"id":"42","q":"hi"}"#)

            var post = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/echo")!)
            post.httpMethod = "POST"
            post.httpBody = Data("ping".utf8)
            let (echoed, _) = try await URLSession.shared.data(for: post)
            #expect(String(decoding: echoed, as: UTF8.self) == "ping")
        }
    }

    @Test func reportsIPv4PeersOnADualStackSocketAsIPv4() async throws {
        var router = TestRouter()
        router.on(.get, "/peer") { request, _ in Response(body: .bytes(Array(request.remoteAddress.utf8))) }
        try await withServer(router, configure: { $0.host = "::" }) { port, _ in
            let viaIPv4 = try RawClient(port: port).exchange("GET /peer HTTP/1.1\r\nHost: x\r\n\r\n")
            let viaIPv6 = try RawClient(port: port, host: "::1").exchange("GET /peer HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(viaIPv4.text == "127.0.0.1")
            #expect(viaIPv6.text == "::1")
        }
    }

    @Test func refusesToShareAPortWithAnotherServer() async throws {
        try await withServer(testRouter()) { port, _ in
            var configuration = HTTPServerConfiguration()
            configuration.port = port
            let second = HTTPServer(configuration: configuration, responder: testRouter(), logger: Logger(label: "test"))
            #expect { try second.start() } throws: { ($0 as? HTTPServerError)?.code == .bindFailed }
            let reply = try RawClient(port: port).exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(reply.text == "hello")
        }
    }

    @Test func listensOnIPv6() async throws {
        try await withServer(testRouter(), configure: { $0.host = "::1" }) { port, _ in
            let reply = try RawClient(port: port, host: "::1").exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(reply.text == "hello")
        }
    }
}
