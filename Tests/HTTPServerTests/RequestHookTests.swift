import HTTPServer
import Synchronization
import Testing

/// Request hooks on a live server: order, early answers, and the final response they see.
@Suite struct RequestHookTests {
    /// Tags the response with its name and records what it saw.
    final class Tag: RequestHook {
        let name: String
        let answersPath: String?
        let seen = Mutex<[String]>([])
        let elapsed = Mutex<[Duration]>([])

        init(_ name: String, answering path: String? = nil) {
            self.name = name
            answersPath = path
        }

        func willRespond(to request: Request, context: inout CoreRequestContext) -> Response? {
            seen.withLock { $0.append("will \(request.path)") }
            guard request.path == answersPath else { return nil }
            return Response(status: 204, headers: ["X-Answered-By": name])
        }

        func didRespond(to request: Request, context: CoreRequestContext, response: inout Response, elapsed: Duration) {
            seen.withLock { $0.append("did \(response.status) \(context.routePattern ?? "-")") }
            self.elapsed.withLock { $0.append(elapsed) }
            response.headers.add("X-Order", name)
        }
    }

    @Test func runBeforeInOrderAndAfterInReverse() async throws {
        let outer = Tag("outer"), inner = Tag("inner")
        try await withServer(testRouter(), hooks: [outer, inner]) { port, _ in
            let reply = try RawClient(port: port).exchange("GET /items/7 HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(reply.status == 200)
            #expect(reply.text == #"{"id":"7","q":""}"#)
            #expect(reply.headers.values("X-Order") == ["inner", "outer"])
        }
        #expect(outer.seen.withLock { $0 } == ["will /items/7", "did 200 /items/{id}"])
        #expect(inner.seen.withLock { $0 } == ["will /items/7", "did 200 /items/{id}"])
        // Both measured the same span, which ran from before the first hook to after the responder.
        let spans = outer.elapsed.withLock { $0 } + inner.elapsed.withLock { $0 }
        #expect(spans.count == 2 && spans[0] == spans[1] && spans[0] > .zero && spans[0] < .seconds(60))
    }

    @Test func anEarlyAnswerSkipsTheRestButEveryHookSeesIt() async throws {
        let outer = Tag("outer", answering: "/preflight"), inner = Tag("inner")
        try await withServer(testRouter(), hooks: [outer, inner]) { port, _ in
            let reply = try RawClient(port: port).exchange("OPTIONS /preflight HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(reply.status == 204)
            #expect(reply.headers["X-Answered-By"] == "outer")
            #expect(reply.headers.values("X-Order") == ["inner", "outer"])
        }
        #expect(outer.seen.withLock { $0 } == ["will /preflight", "did 204 -"])
        #expect(inner.seen.withLock { $0 } == ["did 204 -"])
    }

    @Test func seeAFailedHandlerAsItsProblemResponse() async throws {
        let tag = Tag("only")
        try await withServer(testRouter(), hooks: [tag]) { port, _ in
            let client = try RawClient(port: port)
            let failed = try client.exchange("GET /fail HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(failed.status == 500)
            #expect(failed.headers["Content-Type"] == "application/problem+json")
            #expect(failed.headers["X-Order"] == "only")
            let missing = try client.exchange("GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(missing.status == 404)
        }
        #expect(tag.seen.withLock { $0 } == ["will /fail", "did 500 /fail", "will /nowhere", "did 404 -"])
    }
}
