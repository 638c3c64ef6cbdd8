import ArgumentParser
import FormStore
import FormhouseApp
import Foundation
import Logging
import PostgresFormStore

/// `formhouse migrate --to URL`: copies the data directory's SQLite database into an empty
/// PostgreSQL database, with the data directory locked against a server.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the data directory's SQLite database into an empty PostgreSQL database.",
        discussion: """
            Copies every form with all its versions, every submission with its raw body, the webhook \
            endpoints with their secrets still encrypted, the deliveries (without leases) and their \
            attempts, keeping ids, timestamps and bytes. The PostgreSQL database must hold no data; its \
            schema is created when missing. The SQLite database is only read, and no server may run on \
            the data directory meanwhile (stop it first). Rows go in batches, one transaction each; at \
            the end each table's rows are counted on both sides, and a difference fails the command.

            Webhook secrets stay encrypted with this data directory's key: the servers on PostgreSQL need \
            the same key (FORMHOUSE_SECRET_KEY, or the contents of the directory's secret.key) to sign.
            """)

    @Option(name: .customLong("to"), help: ArgumentHelp(
        "The empty PostgreSQL database: postgres://user:password@host:port/database (sslmode=disable, prefer, "
            + "require or verify-full may follow as ?sslmode=…), or postgres://user@/database?host=/socket/directory. "
            + "Default: the database.url setting (FORMHOUSE_DATABASE_URL), where a password is not on the command line.",
        valueName: "postgres-url"))
    var target: String?
    @Option(help: "JSON configuration file, read for the data directory (missing is fine; default: \(Serve.defaultConfig)).")
    var config: String?
    @Option(name: .setting("dataDirectory"), help: .setting("dataDirectory")) var dataDirectory: String?

    func run() async throws {
        let settings = try await AppConfiguration.load(
            file: config ?? Serve.defaultConfig, overrides: dataDirectory.map { ["dataDirectory": $0] } ?? [:])
        guard let url = target ?? settings.databaseURL else {
            throw ValidationError("name the PostgreSQL database with --to or FORMHOUSE_DATABASE_URL")
        }
        let postgres: PostgresConnectionSettings
        do {
            postgres = try PostgresConnectionSettings(url: url)
        } catch {
            throw ConfigurationError(key: target == nil ? "database.url" : "--to", message: "\(error)")
        }
        if target != nil, postgres.password != nil {
            // A one-off command, so a warning rather than the refusal `serve --database-url` gives.
            FileHandle.standardError.write(Data(
                "warning: --to holds a password, which other users of this machine can read while the copy runs; FORMHOUSE_DATABASE_URL keeps it private\n".utf8))
        }
        let level = settings.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }

        let directory = URL(fileURLWithPath: settings.dataDirectory, isDirectory: true)
        let copy = SQLiteToPostgresCopy(databaseFile: directory.appendingPathComponent(SQLiteStoreConfiguration().fileName))
        // Checked before the lock, which would create a missing directory.
        guard FileManager.default.fileExists(atPath: copy.databaseFile.path) else {
            throw StoreCopyError.noDatabase(path: copy.databaseFile.path)
        }
        let lock = try DataDirectoryLock(directory: directory, whenHeld: "stop the server before migrating")
        let store = try await PostgresFormStore(settings: postgres)
        defer { store.close() }
        let display = CopyProgressDisplay()
        let counts = try await copy.run(into: store) { display.show($0) }
        withExtendedLifetime(lock) {}

        print("Copied \(copy.databaseFile.path) into \(postgres); the rows of each table match:")
        let width = counts.map(\.table.count).max() ?? 0
        for count in counts {
            print("  \(count.table.padding(toLength: width, withPad: " ", startingAt: 0))  \(count.rows)")
        }
        print("Webhook secrets were copied encrypted: the servers on PostgreSQL need this data directory's secret key.")
    }
}
