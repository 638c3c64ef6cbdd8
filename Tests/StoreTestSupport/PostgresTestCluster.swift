import Foundation
import PostgresFormStore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL cluster for the tests of this process: `initdb` into a temporary directory
/// (as the `postgres` user when the tests run as root, since the server refuses to run as root), the
/// server on a free port of 127.0.0.1 with its socket in that directory, stopped and removed when the
/// process exits. It starts on first use; each test then takes a fresh database of its own.
public final class PostgresTestCluster: Sendable {
    /// Where the server's Unix socket is.
    public let socketDirectory: String
    public let port: Int
    /// The superuser `initdb` made; every connection is trusted.
    public let username = "postgres"

    private let binaries: URL
    private let directory: URL

    /// The cluster of this test process, started on first use. Throws (so that the tests fail, not
    /// skip) when PostgreSQL's binaries are missing or the server does not start.
    public static func shared() throws -> PostgresTestCluster {
        try started.get()
    }

    private static let started = Result { try PostgresTestCluster() }

    /// A cluster of the caller's own, for tests that stop and start the server (which would break
    /// every other test on the shared one). Stopped and removed by ``remove()``, or at exit.
    public static func dedicated() throws -> PostgresTestCluster {
        try PostgresTestCluster()
    }

    private let data: String
    private let options: String
    private let log: String

    private init() throws {
        binaries = try Self.findBinaries()
        directory = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("formhouse-postgres-\(UUID().uuidString)")
        socketDirectory = directory.path
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        if Self.runsAsRoot { try Self.giveToPostgresUser(directory.path) }
        port = try Self.freePort()
        data = directory.appendingPathComponent("data").path
        options = "-p \(port) -k \(socketDirectory) -c listen_addresses=127.0.0.1 -c fsync=off "
            + "-c synchronous_commit=off -c full_page_writes=off -c max_connections=600"
        log = directory.appendingPathComponent("server.log").path
        try run("initdb", ["-D", data, "-U", username, "--auth=trust", "--no-sync", "-E", "UTF8"])
        let entry = (binaries, data, directory)
        Self.stopAtExit.withLock { clusters in
            if clusters.isEmpty {
                atexit {
                    for (binaries, data, directory) in PostgresTestCluster.stopAtExit.withLock({ $0 }) {
                        _ = try? PostgresTestCluster.execute(binaries.appendingPathComponent("pg_ctl").path,
                                                             ["-D", data, "-m", "immediate", "-w", "stop"])
                        try? FileManager.default.removeItem(at: directory)
                    }
                }
            }
            clusters.append(entry)
        }
        try start()
    }

    /// Starts the server (after ``stop()``); returns once it accepts connections.
    public func start() throws {
        try run("pg_ctl", ["-D", data, "-l", log, "-w", "-t", "60", "-o", options, "start"])
    }

    /// Stops the server at once, cutting every connection, as a crash or a failover would.
    public func stop() throws {
        try run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
    }

    /// Stops a dedicated cluster and removes its files.
    public func remove() {
        try? stop()
        try? FileManager.default.removeItem(at: directory)
        Self.stopAtExit.withLock { $0.removeAll { $0.2 == directory } }
    }

    /// A URL that reaches `database` over TCP, as an operator would write it.
    public func url(database: String) -> String {
        "postgres://\(username)@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    /// Creates an empty database with a random name and returns the settings that reach it through
    /// the cluster's Unix socket.
    public func freshDatabase() throws -> PostgresConnectionSettings {
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        // An ICU collation, under which "B" sorts after "a": the store must not lean on the cluster's C locale.
        try run("createdb", ["-h", socketDirectory, "-p", "\(port)", "-U", username, "-T", "template0",
                             "--locale-provider=icu", "--icu-locale=en-US", name])
        return PostgresConnectionSettings(
            endpoint: .unixSocket(directory: socketDirectory, port: port), username: username, password: nil,
            database: name, sslMode: .disable)
    }

    /// What the atexit handler stops and removes, per cluster: the binaries, the data directory and the whole directory.
    private static let stopAtExit = Mutex<[(URL, String, URL)]>([])

    private func run(_ tool: String, _ arguments: [String]) throws {
        try Self.execute(binaries.appendingPathComponent(tool).path, arguments)
    }

    private static var runsAsRoot: Bool { getuid() == 0 }

    /// Runs a PostgreSQL program (as `postgres` when we are root) and throws its output when it fails.
    /// Output goes to a file, not a pipe: `pg_ctl start` leaves a server running that would hold a pipe
    /// open. A plain blocking waitpid, since tests may all be blocked here at once waiting for the
    /// cluster (Foundation's `Process` needs another thread to see the child exit).
    private static func execute(_ program: String, _ arguments: [String]) throws {
        let command = runsAsRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--", program] + arguments : [program] + arguments
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-output-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, command[0], &actions, nil, &argv, environ)
        guard spawned == 0 else { throw ClusterError("cannot run \(command[0]) (errno \(spawned))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED and WEXITSTATUS are macros Swift does not import.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            throw ClusterError("\(program) \(arguments.joined(separator: " ")) failed (wait status \(status)):\n\(text)")
        }
    }

    /// The newest `/usr/lib/postgresql/<version>/bin` that has `initdb` (Debian's layout).
    private static func findBinaries() throws -> URL {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        let candidates = versions.compactMap(Int.init).sorted(by: >)
            .map { URL(fileURLWithPath: "\(root)/\($0)/bin") }
            .filter { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("initdb").path) }
        guard let newest = candidates.first else {
            throw ClusterError("""
                the PostgreSQL tests need PostgreSQL's server binaries (initdb, pg_ctl) under \(root)/<version>/bin: \
                install the postgresql package (scripts/setup.sh --test does)
                """)
        }
        if runsAsRoot, getpwnam("postgres") == nil {
            throw ClusterError("the tests run as root and there is no postgres user to run the server as")
        }
        return newest
    }

    private static func giveToPostgresUser(_ path: String) throws {
        guard let user = getpwnam("postgres"), chown(path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
            throw ClusterError("cannot give \(path) to the postgres user (errno \(errno))")
        }
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now (the kernel picks it).
    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ClusterError("socket() failed (errno \(errno))") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else { throw ClusterError("cannot find a free port (errno \(errno))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Why the test cluster could not start or make a database.
public struct ClusterError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
