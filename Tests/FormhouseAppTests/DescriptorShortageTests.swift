import Foundation
import Glibc
import Testing

/// Out of file descriptors, the server pauses accepting and retries every sweep (100 ms). It said so
/// on every retry, ten lines a second for as long as the shortage lasted; now once when it begins, at
/// most once a minute while it lasts, and once when it ends. It serves again once connections close.
@Suite struct DescriptorShortageTests {
    @Test func aDescriptorShortageIsLoggedOnceAndOutlived() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let portFile = dir.path + "/port"
        let logFile = dir.path + "/server.log"
        FileManager.default.createFile(atPath: logFile, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // 64 descriptors: the database, epoll and the loops' wake-ups leave room for a few dozen clients.
        process.arguments = ["-c", #"ulimit -n 64 && exec "$0" "$@""#, Repo.binary, "serve", "--port", "0",
                             "--port-file", portFile, "--data-dir", dir.path + "/data", "--forms-dir", Repo.forms,
                             "--public-dir", Repo.publicDirectory, "--config", dir.path + "/none.json",
                             "--log-level", "notice", "--event-loops", "1"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        try process.run()
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        var port = 0
        for _ in 0..<500 where port == 0 {
            port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) } ?? 0
            if port == 0 { try await Task.sleep(for: .milliseconds(20)) }
        }
        try #require(port > 0, "the server did not start")

        // More connections than descriptors, held for 2 s: twenty sweeps retry the listener.
        var sockets: [Int32] = []
        for _ in 0..<120 { sockets.append(try Self.connect(port: port)) }
        try await Task.sleep(for: .seconds(2))
        for fd in sockets { close(fd) }

        // Served again: the sweep re-arms the listener once descriptors are free.
        var served = false
        for _ in 0..<100 where !served {
            served = (try? await TestHTTPClient(port: port, token: "").get("/healthz"))?.status == 200
            if !served { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(served)
        process.terminate()
        process.waitUntilExit()
        let log = try String(contentsOfFile: logFile, encoding: .utf8)
        let paused = log.components(separatedBy: "\n").filter { $0.contains("accept paused") }.count
        let stillPaused = log.components(separatedBy: "\n").filter { $0.contains("accept still paused") }.count
        #expect(paused == 1, "\(log)")
        #expect(stillPaused == 0, "\(log)")
        #expect(log.contains("accept resumed"), "\(log)")
    }

    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestClientError("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { close(fd); throw TestClientError("connect: \(errno)") }
        return fd
    }
}
