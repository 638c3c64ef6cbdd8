import Foundation
import Testing
import WebhookReceiver
import Webhooks

#if canImport(Glibc)
import Glibc
#endif

/// HTTPS through libcurl against `openssl s_server` on loopback with a self-signed certificate:
/// certificate verification is on, so the handshake is refused and nothing is sent.
@Suite struct CertificateVerificationTests {
    @Test func selfSignedCertificatesAreRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = directory.appendingPathComponent("key.pem").path
        let certificate = directory.appendingPathComponent("cert.pem").path
        let generator = try spawn(["/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                    "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=127.0.0.1",
                                    "-addext", "subjectAltName=IP:127.0.0.1"])
        var status: Int32 = 0
        waitpid(generator, &status, 0)
        #expect(status == 0, "openssl req exit status \(status)")

        // A free port, handed to s_server: another test's connection may take it meanwhile, and
        // s_server then exits at once, so a few ports are tried.
        var started: (pid: pid_t, port: Int)?
        for _ in 0..<5 where started == nil {
            let probe = try LoopbackReceiver { _ in ReceiverReply(status: 200) }
            let port = probe.port
            probe.stop()
            let pid = try spawn(["/usr/bin/openssl", "s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate, "-key", key, "-www", "-quiet"])
            var exited = false
            try await eventually("s_server listening or gone") {
                exited = waitpid(pid, nil, WNOHANG) == pid
                return exited || canConnect(port: port)
            }
            if !exited { started = (pid, port) }
        }
        let (server, port) = try #require(started, "s_server did not start on any of five ports")
        defer {
            kill(server, SIGKILL)
            waitpid(server, nil, 0)
        }

        let client = CurlClient(configuration: .init(policy: AddressPolicy(allowPrivate: true)))
        let result = await client.send(OutgoingRequest(url: "https://127.0.0.1:\(port)/", body: Array("{}".utf8)))
        #expect(result.status == nil)
        #expect(result.error?.code == .tls, "\(String(describing: result.error))")
    }

    /// Starts a program with its output discarded (Foundation's Process hangs in some sandboxes).
    private func spawn(_ arguments: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
        return pid
    }

    private func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
