import ArgumentParser
import FormStore
import FormhouseApp
import Foundation
import PostgresFormStore

/// `formhouse audit verify`: checks the audit log's hash chain where the server keeps it.
struct Audit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Work with the audit log of admin writes.", subcommands: [Verify.self])

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that no audit entry was edited, removed or moved.",
            discussion: """
                Reads the whole log oldest first, from the database the settings name (database.url, \
                else the data directory's SQLite file, read-only, so a running server may keep writing), \
                and checks each entry's hash and its link to the one before. Prints the number of entries \
                and the newest one's sequence and hash: keep that line somewhere else, and pass it back \
                with --expect-head to also catch entries cut off the end, which a chain alone cannot show. \
                Exits 0 when the log is whole, 1 when it is not.
                """)

        @Option(help: "JSON configuration file (missing is fine; default: \(Serve.defaultConfig)).") var config: String?
        @Option(name: .setting("dataDirectory"), help: .setting("dataDirectory")) var dataDirectory: String?
        @Option(name: .customLong("expect-head"), help: ArgumentHelp(
            "An entry noted earlier, as <sequence>:<hash>, that the log must still hold as it was.", valueName: "sequence:hash"))
        var expectedHead: String?

        func run() async throws {
            let settings = try await AppConfiguration.load(
                file: config ?? Serve.defaultConfig, overrides: dataDirectory.map { ["dataDirectory": $0] } ?? [:])
            var head: (sequence: Int64, hash: String)?
            if let expectedHead {
                let parts = expectedHead.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, let sequence = Int64(parts[0]), sequence > 0, parts[1].count == 64 else {
                    throw ValidationError("--expect-head takes <sequence>:<64 hex digits>, as verify printed them")
                }
                head = (sequence, String(parts[1]).lowercased())
            }
            let verdict: AuditChain.Verdict
            if let url = settings.databaseURL {
                let store = try await PostgresFormStore(settings: try PostgresConnectionSettings(url: url))
                defer { store.close() }
                verdict = try await AuditChain.verify(store, expectedHead: head)
            } else {
                let file = URL(fileURLWithPath: settings.dataDirectory, isDirectory: true).appendingPathComponent(SQLiteStoreConfiguration().fileName)
                verdict = try await AuditChain.verify(try SQLiteAuditLogFile(path: file.path), expectedHead: head)
            }
            switch verdict {
            case .intact(let entries, let newest):
                if let newest {
                    print("The audit log is whole: \(entries) entries; the newest is \(newest.sequence):\(newest.hash)")
                } else {
                    print("The audit log is whole and empty.")
                }
            case .broken(let sequence, let reason):
                print("The audit log is broken at entry \(sequence): \(reason).")
                throw ExitCode(1)
            }
        }
    }
}
