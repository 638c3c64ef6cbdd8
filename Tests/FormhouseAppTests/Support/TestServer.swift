import FormStore
import Foundation
@testable import FormhouseApp
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Paths inside this repository, found from this file's location.
enum Repo {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var forms: String { root.appendingPathComponent("config/forms").path }
    static var publicDirectory: String { root.appendingPathComponent("Public").path }

    /// The `formhouse` executable built beside the test bundle.
    static var binary: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [bundle, bundle.deletingLastPathComponent(), bundle.deletingLastPathComponent().deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("formhouse").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return root.appendingPathComponent(".build/debug/formhouse").path
    }
}

/// A fresh temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("formhouse-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    var path: String { url.path }
    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// The real application in this process, on an ephemeral port with its own data directory.
final class InProcessServer {
    static let token = "test-admin-token-0123456789"
    let app: FormhouseApplication
    let port: Int
    let data: TemporaryDirectory
    var client: TestHTTPClient { TestHTTPClient(port: port, token: Self.token) }

    /// `wrappingStore` stands between the application and the store it opens (a counting decorator).
    init(dataDirectory: TemporaryDirectory? = nil, configure: (inout AppConfiguration) -> Void = { _ in },
         wrappingStore: (any FormStore) -> any FormStore = { $0 }) async throws {
        data = try dataDirectory ?? TemporaryDirectory()
        var configuration = AppConfiguration()
        configuration.port = 0
        configuration.dataDirectory = data.path
        configuration.formsDirectory = Repo.forms
        configuration.publicDirectory = Repo.publicDirectory
        configuration.adminTokens = AdminToken.owners([Self.token])
        configuration.webhookAllowPrivate = true
        configure(&configuration)
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        app = try await FormhouseApplication(
            configuration: configuration, logger: logger, registry: MetricsBootstrap.registry(), wrappingStore: wrappingStore)
        port = try app.startInBackground()
    }

    /// Stops the server; the data directory stays until `finish()` so a restart can reuse it.
    func stop() async { await app.shutdown() }

    func finish() async {
        await app.shutdown()
        data.remove()
    }
}

/// The real `formhouse` executable as a child process (restart and crash tests). Killed when it goes
/// away still running, so a test that fails midway leaves no server behind.
final class ServerProcess {
    let process = Process()
    let port: Int

    /// `launcher` runs before the binary (`["/bin/sh", "-c", "ulimit -n 64 && exec \"$0\" \"$@\""]`);
    /// `logFile`, when given, takes the server's log (standard error).
    init(dataDirectory: String, extraArguments: [String] = [], environment: [String: String] = [:],
         launcher: [String] = [], logFile: String? = nil, logLevel: String = "error") throws {
        let portFile = dataDirectory + "/port-\(UUID().uuidString)"
        // An empty configuration file: the defaults, whatever config/formhouse.json holds.
        let configFile = dataDirectory + "/config-\(UUID().uuidString).json"
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: configFile))
        let arguments = ["serve", "--port", "0", "--data-dir", dataDirectory, "--forms-dir", Repo.forms,
                         "--public-dir", Repo.publicDirectory, "--port-file", portFile, "--log-level", logLevel,
                         "--config", configFile] + extraArguments
        if let executable = launcher.first {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = Array(launcher.dropFirst()) + [Repo.binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: Repo.binary)
            process.arguments = arguments
        }
        // Only the server's own settings: a harness's FORMHOUSE_BIN would be warned about as unknown.
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FORMHOUSE_") }
        env["FORMHOUSE_ADMIN_TOKENS"] = InProcessServer.token
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        if let logFile {
            FileManager.default.createFile(atPath: logFile, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
            process.standardError = handle
            try process.run()
            try handle.close()
        } else {
            try process.run()
        }
        let deadline = Date().addingTimeInterval(60)
        while true {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text) {
                self.port = port
                break
            }
            guard process.isRunning, Date() < deadline else {
                if process.isRunning { process.terminate() }
                throw TestClientError("formhouse did not start (binary \(Repo.binary))")
            }
            usleep(20_000)
        }
        try? FileManager.default.removeItem(atPath: portFile)
        try? FileManager.default.removeItem(atPath: configFile)
    }

    deinit {
        if process.isRunning { kill9() }
    }

    var client: TestHTTPClient { TestHTTPClient(port: port, token: InProcessServer.token) }

    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func terminate() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
