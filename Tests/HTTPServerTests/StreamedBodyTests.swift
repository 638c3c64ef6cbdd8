import Foundation
import Glibc
@testable import HTTPServer
import Synchronization
import Testing

/// Routes that take their body as it arrives: bounded memory whatever the body's size, limits,
/// early answers, clients that leave or stall, and keep-alive after a streamed body.
@Suite struct StreamedBodyTests {
    /// What the handlers saw, for the test to check once the answer is in.
    final class Seen: Sendable {
        let maxBuffered = Atomic<Int>(0)
        let partsTaken = Atomic<Int>(0)
        let errors = Mutex<[RequestBodyError]>([])
    }

    static let limit = 64 * 1024 * 1024

    static func router(_ seen: Seen) -> TestRouter {
        var router = testRouter()
        // Sums the body's bytes, slowly, so the client outruns it and backpressure must hold.
        router.on(.post, "/sum", body: .streamed(maxBytes: limit)) { request, _ in
            guard let body = request.bodyStream else { return Response(status: 500) }
            var count = 0
            var sum: UInt64 = 0
            do {
                while let part = try await body.next() {
                    count += part.count
                    seen.partsTaken.add(1, ordering: .relaxed)
                    for byte in part { sum &+= UInt64(byte) }
                    _ = seen.maxBuffered.max(body.bufferedBytes, ordering: .relaxed)
                    if count % (1024 * 1024) < part.count { try await Task.sleep(for: .milliseconds(2)) }
                }
            } catch let error as RequestBodyError {
                seen.errors.withLock { $0.append(error) }
                throw error
            }
            return .json(Array(#"{"count":\#(count),"sum":\#(sum)}"#.utf8))
        }
        // Refuses after the first part, as an upload of the wrong type is refused.
        router.on(.post, "/refuse", body: .streamed(maxBytes: limit)) { request, _ in
            _ = try await request.bodyStream?.next()
            return Response(status: 422, headers: ["Content-Type": "text/plain"], body: .bytes(Array("no".utf8)))
        }
        return router
    }

    static func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
    }

    static func expectedSum(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0) { $0 &+ UInt64($1) }
    }

    @Test func aLargeBodyIsHandedOnInPartsWithBoundedBuffering() async throws {
        let seen = Seen()
        let body = Self.bytes(6 * 1024 * 1024)
        try await withServer(Self.router(seen)) { port, _ in
            try await blocking {
                let client = try RawClient(port: port)
                try client.send("POST /sum HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n")
                try client.send(body)
                let reply = try client.readReply()
                #expect(reply.status == 200)
                #expect(reply.text == #"{"count":\#(body.count),"sum":\#(Self.expectedSum(body))}"#)
                // The connection stays usable after a streamed body.
                #expect(try client.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").text == "hello")
            }
        }
        // At most the high-water mark plus one read of the socket is held ahead of the handler.
        #expect(seen.maxBuffered.load(ordering: .relaxed) <= RequestBody.highWater + 64 * 1024)
        #expect(seen.maxBuffered.load(ordering: .relaxed) > 0, "the client never got ahead: the test proves nothing")
    }

    @Test func aChunkedBodyStreamsAndAPipelinedRequestFollows() async throws {
        let seen = Seen()
        try await withServer(Self.router(seen)) { port, _ in
            try await blocking {
                let client = try RawClient(port: port)
                try client.send("POST /sum HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
                    + "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
                let reply = try client.readReply()
                #expect(reply.text == #"{"count":5,"sum":\#(Self.expectedSum(Array("abcde".utf8)))}"#)
                #expect(try client.readReply().text == "hello")
            }
        }
    }

    @Test func anEmptyBodyEndsAtOnce() async throws {
        try await withServer(Self.router(Seen())) { port, _ in
            try await blocking {
                let client = try RawClient(port: port)
                let reply = try client.exchange("POST /sum HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
                #expect(reply.text == #"{"count":0,"sum":0}"#)
            }
        }
    }

    @Test func aDeclaredLengthOverTheRouteLimitIsRefusedBeforeTheBody() async throws {
        try await withServer(Self.router(Seen())) { port, _ in
            try await blocking {
                let client = try RawClient(port: port)
                let reply = try client.exchange("POST /sum HTTP/1.1\r\nHost: x\r\nContent-Length: \(Self.limit + 1)\r\n\r\n")
                #expect(reply.status == 413)
            }
        }
    }

    @Test func aBufferedRouteKeepsTheServerLimitWhileAStreamedOneTakesMore() async throws {
        try await withServer(Self.router(Seen()), configure: { $0.maxBodyBytes = 1000 }) { port, _ in
            try await blocking {
                let body = String(repeating: "a", count: 5000)
                let streamed = try RawClient(port: port)
                #expect(try streamed.exchange("POST /sum HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n\(body)").status == 200)
                let buffered = try RawClient(port: port)
                #expect(try buffered.exchange("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n\(body)").status == 413)
            }
        }
    }

    @Test func chunksPastTheRouteLimitReachTheHandlerAsA413() async throws {
        let seen = Seen()
        var router = Self.router(seen)
        router.on(.post, "/small", body: .streamed(maxBytes: 4)) { request, _ in
            while try await request.bodyStream?.next() != nil {}
            return Response(status: 200)
        }
        try await withServer(router) { port, _ in
            try await blocking {
                let client = try RawClient(port: port)
                let reply = try client.exchange("POST /small HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n")
                #expect(reply.status == 413)
                #expect(reply.headers["Connection"] == "close")
            }
        }
    }

    @Test func anAnswerBeforeTheBodyEndsClosesTheConnectionAndTheServerGoesOn() async throws {
        try await withServer(Self.router(Seen())) { port, _ in
            try await blocking {
                let client = try RawClient(port: port)
                try client.send("POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n")
                try client.send(Self.bytes(100_000))
                let reply = try client.readReply()
                #expect(reply.status == 422)
                #expect(reply.headers["Connection"] == "close")
                #expect(try RawClient(port: port).exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").text == "hello")
            }
        }
    }

    @Test func aClientThatLeavesMidBodyFailsItsHandlersRead() async throws {
        let seen = Seen()
        try await withServer(Self.router(seen)) { port, _ in
            try await blocking {
                let client = try RawClient(port: port)
                try client.send("POST /sum HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
                try client.send(Self.bytes(1000))
                // Gone once its handler reads: a client gone before it runs has nobody to tell.
                while seen.partsTaken.load(ordering: .relaxed) == 0 { usleep(1000) }
                client.close()
            }
            for _ in 0..<500 where seen.errors.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(seen.errors.withLock { $0 } == [.disconnected])
    }

    @Test func aClientThatStallsMidBodyGetsA408() async throws {
        let seen = Seen()
        try await withServer(Self.router(seen), configure: { $0.bodyTimeout = .milliseconds(300) }) { port, _ in
            try await blocking {
                let client = try RawClient(port: port)
                try client.send("POST /sum HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc")
                let reply = try client.readReply()
                #expect(reply.status == 408)
            }
        }
        #expect(seen.errors.withLock { $0 } == [.timedOut])
    }

    @Test func aClientThatExpectsContinueIsToldWhenItsHandlerReads() async throws {
        var router = Self.router(Seen())
        router.on(.post, "/reject", body: .streamed(maxBytes: Self.limit)) { _, _ in Response(status: 413) }
        try await withServer(router) { port, _ in
            try await blocking {
                let client = try RawClient(port: port)
                try client.send("POST /sum HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
                #expect(try client.readReply().status == 100)
                try client.send("ab")
                #expect(try client.readReply().text == #"{"count":2,"sum":195}"#)
                // A handler that refuses without reading spares the client its body: no 100 first.
                let refused = try RawClient(port: port)
                try refused.send("POST /reject HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 99999\r\n\r\n")
                let reply = try refused.readReply()
                #expect(reply.status == 413)
                #expect(reply.headers["Connection"] == "close")
            }
        }
    }

    @Test func aBodyGivenWholeReadsLikeAStreamedOne() async throws {
        let body = RequestBody(bytes: Array("hello".utf8))
        #expect(try await body.next() == Array("hello".utf8))
        #expect(try await body.next() == nil)
    }
}
