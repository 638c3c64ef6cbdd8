import Foundation
@testable import FormhouseApp
import Glibc
import Synchronization
import Testing

/// Under a low open-file limit the server caps its connections below it, so clients cannot take
/// every descriptor: libdispatch, which opens `/proc` files to watch its threads, stopped the process
/// (SIGILL) when it could not open one, and the accept loop logged each 100 ms retry.
@Suite struct DescriptorShortageTests {
    @Test func aLowOpenFileLimitCapsConnectionsAndTheServerOutlivesAFlood() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let logFile = dir.path + "/server.log"
        // 64 descriptors: the database, epoll and the loops' wake-ups leave room for a few dozen clients.
        let server = try ServerProcess(dataDirectory: dir.path + "/data", extraArguments: ["--event-loops", "1"],
                                       launcher: ["/bin/sh", "-c", #"ulimit -n 64 && exec "$0" "$@""#],
                                       logFile: logFile, logLevel: "notice")
        let port = server.port

        // More connections than descriptors, held for 2 s.
        let sockets = Sockets()
        defer { sockets.closeAll() }
        try await Offload.blocking { for _ in 0..<120 { sockets.add(try TestSocket.connect(port: port)) } }
        try await Task.sleep(for: .seconds(2))
        #expect(server.process.isRunning)
        sockets.closeAll()

        var served = false
        for _ in 0..<200 where !served {
            served = (try? await TestHTTPClient(port: port, token: "").get("/healthz"))?.status == 200
            if !served { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(served)
        #expect(server.process.isRunning, "the server stopped")
        _ = server.terminate()
        let log = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
        #expect(log.contains("the open-file limit leaves no room for connections"), "\(log)")
        #expect(log.contains("connections refused"), "\(log)")
        #expect(!log.contains("Signal"), "\(log)")
        // Connections stay below the limit, so accepting never ran out of descriptors.
        #expect(!log.contains("accept paused"), "\(log)")
    }

    /// Sockets the test holds, closed once whatever happens.
    final class Sockets: Sendable {
        private let open = Mutex<[Int32]>([])
        func add(_ fd: Int32) { open.withLock { $0.append(fd) } }
        func closeAll() { for fd in open.withLock({ fds in defer { fds = [] }; return fds }) { close(fd) } }
    }
}
