@testable import FileStorage
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A `moto_server` for the tests of this process, on a free port of 127.0.0.1, started on first use
/// and stopped at exit. It checks signatures: its first three actions (unauthenticated) create an
/// IAM user allowed `s3:*` and its access key, and every later request must be signed with that key.
public final class MotoServer: Sendable {
    public let port: Int
    public let accessKeyId: String
    public let secretAccessKey: String
    public let region = "us-east-1"
    /// A client signing with the server's access key, to look at buckets behind the storage's back.
    let client: CurlEasyClient

    public var endpoint: String { "http://127.0.0.1:\(port)" }

    /// What the server answered a request of ``s3(_:_:)``.
    public struct Answer: Sendable {
        public let status: Int
        public let body: [UInt8]
        public let etag: String?
    }

    /// The server of this test process. Throws (so that the S3 tests fail, not skip) when
    /// `moto_server` is missing or does not start.
    public static func shared() async throws -> MotoServer {
        let task = starting.withLock { task in
            if let task { return task }
            let started = Task { try await start() }
            task = started
            return started
        }
        return try await task.value
    }

    private static let starting = Mutex<Task<MotoServer, any Error>?>(nil)
    /// The server's process and log, for the exit handler.
    private static let running = Mutex<(pid: pid_t, log: String)?>(nil)

    private init(port: Int, accessKeyId: String, secretAccessKey: String) {
        self.port = port
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        client = CurlEasyClient(signing: "aws:amz:\(region):s3", username: accessKeyId, password: secretAccessKey, concurrency: 4)
    }

    private static func start() async throws -> MotoServer {
        guard let executable = Self.find("moto_server") else {
            throw SetupError("moto_server is not installed: pip install 'moto[server]' (or run scripts/setup.sh --test).")
        }
        let port = try Self.freePort()
        let process = Process()
        process.executableURL = executable
        process.arguments = ["-H", "127.0.0.1", "-p", "\(port)"]
        var environment = ProcessInfo.processInfo.environment
        environment["INITIAL_NO_AUTH_ACTION_COUNT"] = "3"
        process.environment = environment
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("formhouse-moto-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw SetupError("Cannot create \(log.path).")
        }
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        try process.run()
        Self.running.withLock { running in
            running = (process.processIdentifier, log.path)
            // SIGKILL: moto_server's SIGTERM handler does not stop its serving thread.
            atexit {
                guard let (pid, log) = MotoServer.running.withLock({ $0 }) else { return }
                kill(pid, SIGKILL)
                unlink(log)
            }
        }
        let deadline = Date().addingTimeInterval(60)
        while !Self.answers(port) {
            guard process.isRunning, Date() < deadline else {
                throw SetupError("moto_server did not start; its output is in \(log.path).")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let setup = CurlEasyClient(signing: "aws:amz:us-east-1:iam", username: "setup", password: "setup", concurrency: 1)
        let endpoint = "http://127.0.0.1:\(port)/"
        let policy = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}"#
        _ = try await Self.iam(setup, endpoint, "Action=CreateUser&UserName=formhouse&Version=2010-05-08")
        _ = try await Self.iam(setup, endpoint, "Action=PutUserPolicy&UserName=formhouse&PolicyName=s3&PolicyDocument="
            + S3BlobStorage.percentEncoded(policy, keepingSlashes: false) + "&Version=2010-05-08")
        let key = try await Self.iam(setup, endpoint, "Action=CreateAccessKey&UserName=formhouse&Version=2010-05-08")
        guard let id = S3XML.text(of: "AccessKeyId", in: key), let secret = S3XML.text(of: "SecretAccessKey", in: key) else {
            throw SetupError("moto_server's CreateAccessKey answer has no key: \(String(decoding: key, as: UTF8.self))")
        }
        return MotoServer(port: port, accessKeyId: id, secretAccessKey: secret)
    }

    /// A new, empty bucket.
    public func makeBucket() async throws -> String {
        let bucket = "test-" + UUID().uuidString.lowercased().prefix(18)
        let response = try await s3("PUT", "/\(bucket)")
        guard response.status == 200 else { throw SetupError("CreateBucket answered \(response.status).") }
        return bucket
    }

    /// The location of `bucket` (under `prefix`) with this server's credentials.
    public func location(bucket: String, prefix: String = "") throws -> S3Location {
        try S3Location(
            url: "s3://\(bucket)/\(prefix)", endpoint: endpoint, region: region, accessKeyId: accessKeyId, secretAccessKey: secretAccessKey)
    }

    /// Sends a signed request for `path` (`/bucket/key?query`, already encoded).
    public func s3(_ method: String, _ path: String) async throws -> Answer {
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        let response = try await client.send(HTTPRequest(
            method: method, url: endpoint + path, headers: [(name: "x-amz-content-sha256", value: empty)], body: [],
            responseLimit: 1 << 20))
        return Answer(status: response.status, body: response.body, etag: response.etag)
    }

    private static func iam(_ client: CurlEasyClient, _ endpoint: String, _ form: String) async throws -> [UInt8] {
        let request = HTTPRequest(
            method: "POST", url: endpoint,
            headers: [(name: "Content-Type", value: "application/x-www-form-urlencoded"), (name: "x-amz-content-sha256", value: "UNSIGNED-PAYLOAD")],
            body: Array(form.utf8), responseLimit: 1 << 20)
        let answer = try await client.send(request)
        guard answer.status == 200 else {
            throw SetupError("moto_server refused \(form.prefix { $0 != "&" }): \(String(decoding: answer.body, as: UTF8.self))")
        }
        return answer.body
    }

    private static func find(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw SetupError("No free port on 127.0.0.1.") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func answers(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

/// Why the test environment could not be set up.
public struct SetupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
