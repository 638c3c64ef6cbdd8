import Foundation
import Glibc
import HTTPServer
import Testing

/// HTTP/1.1 features over live sockets: 100-continue, chunked uploads, many connections, curl.
@Suite struct ProtocolTests {
    @Test func sends100ContinueBeforeTheBody() async throws {
        try await withServer(testRouter()) { port, _ in
            let client = try RawClient(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
            let interim = try client.readReply()
            #expect(interim.status == 100)
            try client.send("hello")
            let reply = try client.readReply()
            #expect(reply.status == 200)
            #expect(reply.text == "hello")
        }
    }

    @Test func refusesAnOversizedBodyInsteadOfContinuing() async throws {
        try await withServer(testRouter(), configure: { $0.maxBodyBytes = 10 }) { port, _ in
            let client = try RawClient(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 50\r\n\r\n")
            let reply = try client.readReply()
            #expect(reply.status == 413)
            // The detail names the limit, so a client knows how much to send.
            #expect(reply.text.contains("The request was refused: body over 10 bytes."), "\(reply.text)")
        }
    }

    @Test func decodesAChunkedBodySentInAwkwardPieces() async throws {
        let message = Array("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;name=value\r\nhello\r\n1\r\n \r\n6\r\nworld!\r\n0\r\nX-Trailer: dropped\r\n\r\n".utf8)
        try await withServer(testRouter()) { port, _ in
            let client = try RawClient(port: port)
            var one: Int32 = 1
            setsockopt(client.fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            // One byte per write, with a pause so each lands in its own segment.
            for byte in message {
                try client.send([byte])
                usleep(300)
            }
            let reply = try client.readReply()
            #expect(reply.text == "hello world!")
            #expect(try client.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").text == "hello")
        }
    }

    @Test func servesAThousandConcurrentKeepAliveConnections() async throws {
        try await withServer(testRouter()) { port, server in
            var clients: [RawClient] = []
            for _ in 0..<1000 {
                clients.append(try RawClient(port: port))
            }
            for round in 0..<3 {
                for (index, client) in clients.enumerated() {
                    try client.send("GET /items/\(index)?q=\(round) HTTP/1.1\r\nHost: x\r\n\r\n")
                }
                for (index, client) in clients.enumerated() {
                    let reply = try client.readReply()
                    #expect(reply.text == #"{"id":"\#(index)","q":"\#(round)"}"#)
                }
            }
            #expect(server.connectionCount == 1000)
            clients.removeAll()
            while server.connectionCount > 0 {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    @Test func servesCurl() async throws {
        try await withServer(testRouter()) { port, _ in
            let output = try Self.run("/usr/bin/curl", ["-sS", "-i", "--data-binary", "from curl", "http://127.0.0.1:\(port)/echo"])
            #expect(output.hasPrefix("HTTP/1.1 200 OK"))
            #expect(output.hasSuffix("from curl"))
            let chunked = try Self.run("/usr/bin/curl", ["-sS", "-H", "Transfer-Encoding: chunked", "--data-binary", "chunked curl", "http://127.0.0.1:\(port)/echo"])
            #expect(chunked == "chunked curl")
            let pair = try Self.run("/usr/bin/curl", ["-sS", "http://127.0.0.1:\(port)/hello", "http://127.0.0.1:\(port)/items/9"])
            #expect(pair == #"hello{"id":"9","q":""}"#)
        }
    }

    /// Runs a tool and returns its standard output. posix_spawn rather than Foundation's Process,
    /// which crashes intermittently on Linux while many descriptors are open (as in the 1,000-connection test).
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else { throw RawClient.Failure(description: "pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
        let argv = ([tool] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, tool, &actions, nil, argv, environ)
        close(pipeFDs[1])
        defer { close(pipeFDs[0]) }
        guard status == 0 else { throw RawClient.Failure(description: "spawn failed: \(status)") }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(pipeFDs[0], $0.baseAddress, $0.count) }
            if count > 0 { output += chunk[0..<count] } else if count == 0 || errno != EINTR { break }
        }
        var exit: Int32 = 0
        waitpid(pid, &exit, 0)
        return String(decoding: output, as: UTF8.self)
    }
}
