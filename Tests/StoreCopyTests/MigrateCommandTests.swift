import FormhouseApp
import Foundation
import Logging
import PostgresNIO
import StoreTestSupport
import Testing

@testable import PostgresFormStore

/// `formhouse migrate` as an operator runs it: the built executable, on a data directory, into a database.
@Suite struct MigrateCommandTests {
    /// The URL of a fresh database through the cluster's socket, with a password (which trust
    /// authentication never asks for) that no output may show.
    static func freshURL() throws -> (url: String, settings: PostgresConnectionSettings) {
        let settings = try PostgresTestCluster.shared().freshDatabase()
        let url = settings.description.replacingOccurrences(
            of: "postgres://\(settings.username)@", with: "postgres://\(settings.username):\(password)@")
        return (url, settings)
    }

    static let password = "pw-never-shown-7f3a"

    @Test func copiesADataDirectoryAndPrintsTheCounts() async throws {
        let directory = TemporaryDirectory()
        try await DataDirectoryFixture.make(in: directory.url)
        let (url, settings) = try Self.freshURL()

        let first = try Self.run(["migrate", "--to", url, "--data-dir", directory.url.path])
        #expect(first.status == 0, "\(first.output)")
        for (table, rows) in DataDirectoryFixture.counts {
            #expect(first.output.contains(try Regex("\n  \(table) +\(rows)\n")), "\(table): \(first.output)")
            // Not a terminal: one plain line per table, no bar.
            #expect(first.output.contains(try Regex("\(table) +\(rows) rows in ")), "\(table): \(first.output)")
        }
        #expect(!first.output.contains("\r") && !first.output.contains("[#"))
        #expect(!first.output.contains(Self.password))
        #expect(try await Self.count("submissions", settings) == DataDirectoryFixture.counts["submissions"])

        let second = try Self.run(["migrate", "--to", url, "--data-dir", directory.url.path])
        #expect(second.status != 0)
        #expect(second.output.contains("already holds data"), "\(second.output)")
        #expect(!second.output.contains(Self.password))
        #expect(try await Self.count("submissions", settings) == DataDirectoryFixture.counts["submissions"])
    }

    @Test func refusesADataDirectoryThatAServerHolds() async throws {
        let directory = TemporaryDirectory()
        try await DataDirectoryFixture.make(in: directory.url)
        let (url, settings) = try Self.freshURL()
        let lock = try DataDirectoryLock(directory: directory.url)
        let result = try Self.run(["migrate", "--to", url, "--data-dir", directory.url.path])
        withExtendedLifetime(lock) {}
        #expect(result.status != 0)
        #expect(result.output.contains("is in use by another formhouse process (pid \(getpid())); stop the server"),
                "\(result.output)")
        // Refused before the database was opened: not even the schema was made.
        #expect(try await Self.scalar("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", settings) == 0)
    }

    @Test func refusesAURLItCannotUseWithoutShowingThePassword() throws {
        let directory = TemporaryDirectory()
        let result = try Self.run(["migrate", "--to", "postgres://ana:\(Self.password)@db.example/forms?port=5433",
                                   "--data-dir", directory.url.path])
        #expect(result.status == 1)
        #expect(result.output.contains("configuration '--to': the PostgreSQL URL's parameter port is not supported"),
                "\(result.output)")
        #expect(!result.output.contains(Self.password))
    }

    @Test func helpExplainsTheCommand() throws {
        let help = try Self.run(["migrate", "--help"])
        #expect(help.status == 0)
        // Lines are wrapped to the width: words are compared with single spaces between them.
        let text = help.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for phrase in ["--to <postgres-url>", "into an empty PostgreSQL database", "--data-dir <data-dir>",
                       "FORMHOUSE_DATA_DIR", "stop it first", "the same key"] {
            #expect(text.contains(phrase), "\(phrase): \(help.output)")
        }
    }

    static func count(_ table: String, _ settings: PostgresConnectionSettings) async throws -> Int {
        try await scalar("SELECT count(*) FROM \(table)", settings)
    }

    /// One number read on a connection of its own (not through a store, which would make the schema).
    static func scalar(_ sql: String, _ settings: PostgresConnectionSettings) async throws -> Int {
        let logger = Logger(label: "migrate-test")
        let connection = try await PostgresConnection.connect(
            configuration: try settings.connectionConfiguration(), id: 1, logger: logger)
        do {
            let value = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(Int.self).reduce(0, +)
            try await connection.close()
            return value
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// The `formhouse` executable built beside the test bundle.
    static var binary: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [bundle, bundle.deletingLastPathComponent(), bundle.deletingLastPathComponent().deletingLastPathComponent()]
        return candidates.map { $0.appendingPathComponent("formhouse").path }
            .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "formhouse"
    }

    /// Runs the executable without a terminal, with no FORMHOUSE_ variable and an empty configuration
    /// file; returns its exit status and its standard output and error together.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("migrate-\(UUID().uuidString).json")
        try Data("{}".utf8).write(to: config)
        defer { try? FileManager.default.removeItem(at: config) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments + (arguments.contains("--help") ? [] : ["--config", config.path])
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FORMHOUSE_") }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
