import Foundation
import Testing
@testable import FormhouseApp
@testable import formhouse

/// Every declared setting is reachable by its file key, its variable and its flag, is bounded, and
/// takes flag over variable over file over default; the flags, the shipped file and
/// docs/configuration.md agree with the declaration.
struct SettingsDeclarationTests {
    /// A value as the JSON file writes it and as a variable or flag does.
    struct Sample: Sendable {
        let json: String
        let text: String
    }

    /// Two values of each setting, the first not its default, the second not the first.
    static let samples: [String: (first: Sample, second: Sample)] = [
        "host": (.init(json: #""0.0.0.0""#, text: "0.0.0.0"), .init(json: #""localhost""#, text: "localhost")),
        "port": (.init(json: "9001", text: "9001"), .init(json: "9002", text: "9002")),
        "dataDirectory": (.init(json: #""/tmp/a""#, text: "/tmp/a"), .init(json: #""/tmp/b""#, text: "/tmp/b")),
        "formsDirectory": (.init(json: #""/tmp/a""#, text: "/tmp/a"), .init(json: #""/tmp/b""#, text: "/tmp/b")),
        "publicDirectory": (.init(json: #""/tmp/a""#, text: "/tmp/a"), .init(json: #""/tmp/b""#, text: "/tmp/b")),
        "adminTokens": (.init(json: #"["token-aaaaaaaaaaaaaaaa"]"#, text: "token-aaaaaaaaaaaaaaaa"),
                        .init(json: #"["token-bbbbbbbbbbbbbbbb", "token-cccccccccccccccc"]"#,
                              text: "token-bbbbbbbbbbbbbbbb, token-cccccccccccccccc")),
        "corsOrigins": (.init(json: #"["https://a.example"]"#, text: "https://a.example"),
                        .init(json: #"["https://b.example", "https://c.example"]"#, text: "https://b.example,https://c.example")),
        "eventLoops": (.init(json: "3", text: "3"), .init(json: "4", text: "4")),
        "maxBodyBytes": (.init(json: "2048", text: "2048"), .init(json: "4096", text: "4096")),
        "maxPendingBodyBytes": (.init(json: "2097152", text: "2097152"), .init(json: "4194304", text: "4194304")),
        "maxQueuedOutputBytes": (.init(json: "2097152", text: "2097152"), .init(json: "4194304", text: "4194304")),
        "maxConnectionsPerAddress": (.init(json: "5", text: "5"), .init(json: "6", text: "6")),
        "maxValueLength": (.init(json: "100", text: "100"), .init(json: "200", text: "200")),
        "rateLimit.burst": (.init(json: "5", text: "5"), .init(json: "7", text: "7")),
        "rateLimit.perSecond": (.init(json: "2.5", text: "2.5"), .init(json: "0.5", text: "0.5")),
        "synchronous": (.init(json: #""NORMAL""#, text: "normal"), .init(json: #""FULL""#, text: "FULL")),
        "store.maxGroupSize": (.init(json: "8", text: "8"), .init(json: "16", text: "16")),
        "webhooks.concurrency": (.init(json: "4", text: "4"), .init(json: "8", text: "8")),
        "webhooks.timeoutSeconds": (.init(json: "5", text: "5"), .init(json: "20.5", text: "20.5")),
        "webhooks.leaseSeconds": (.init(json: "120", text: "120"), .init(json: "90", text: "90")),
        "webhooks.retrySchedule": (.init(json: "[1, 2.5]", text: "1,2.5"), .init(json: "[3]", text: "3")),
        // A flag that sets a boolean takes no value and sets it to true: the first sample.
        "webhooks.allowPrivate": (.init(json: "true", text: "true"), .init(json: "false", text: "false")),
        "secretKey": (.init(json: "\"\(key(0))\"", text: key(0)), .init(json: "\"\(key(1))\"", text: key(1))),
        "database.url": (.init(json: #""postgres://a@db/one""#, text: "postgres://a@db/one"),
                         .init(json: #""postgresql://b@/two?host=/run/postgresql""#, text: "postgresql://b@/two?host=/run/postgresql")),
        "database.maxConnections": (.init(json: "5", text: "5"), .init(json: "7", text: "7")),
        "database.statementTimeoutSeconds": (.init(json: "5", text: "5"), .init(json: "0.5", text: "0.5")),
        "publicUrl": (.init(json: #""https://a.example""#, text: "https://a.example"),
                      .init(json: #""http://b.example:8080""#, text: "http://b.example:8080")),
        "storage.url": (.init(json: #""s3://bucket/a""#, text: "s3://bucket/a"), .init(json: #""file:///tmp/files""#, text: "file:///tmp/files")),
        "storage.endpoint": (.init(json: #""http://127.0.0.1:9000""#, text: "http://127.0.0.1:9000"),
                             .init(json: #""https://s3.example""#, text: "https://s3.example")),
        "storage.region": (.init(json: #""eu-west-1""#, text: "eu-west-1"), .init(json: #""sa-east-1""#, text: "sa-east-1")),
        "storage.accessKeyId": (.init(json: #""AKIAONE""#, text: "AKIAONE"), .init(json: #""AKIATWO""#, text: "AKIATWO")),
        "storage.secretAccessKey": (.init(json: #""secret-one""#, text: "secret-one"), .init(json: #""secret-two""#, text: "secret-two")),
        "uploads.maxFileBytes": (.init(json: "2048", text: "2048"), .init(json: "4096", text: "4096")),
        "uploads.maxInProgress": (.init(json: "5", text: "5"), .init(json: "6", text: "6")),
        "uploads.maxInProgressPerClient": (.init(json: "2", text: "2"), .init(json: "3", text: "3")),
        "uploads.bytesPerSecondPerClient": (.init(json: "2048", text: "2048"), .init(json: "4096", text: "4096")),
        "uploads.minFreeBytes": (.init(json: "1024", text: "1024"), .init(json: "0", text: "0")),
        "uploads.keepUnboundHours": (.init(json: "2.5", text: "2.5"), .init(json: "48", text: "48")),
        "files.linkDays": (.init(json: "1.5", text: "1.5"), .init(json: "30", text: "30")),
        "metrics.token": (.init(json: #""metrics-token-0001""#, text: "metrics-token-0001"), .init(json: #""metrics-token-0002""#, text: "metrics-token-0002")),
        "retention.days": (.init(json: "30", text: "30"), .init(json: "365", text: "365")),
        "drafts.ttlDays": (.init(json: "0.5", text: "0.5"), .init(json: "90", text: "90")),
        "drafts.maxPerClientPerHour": (.init(json: "3", text: "3"), .init(json: "500", text: "500")),
        "drafts.maxRevisions": (.init(json: "5", text: "5"), .init(json: "20", text: "20")),
        "logLevel": (.init(json: #""debug""#, text: "DEBUG"), .init(json: #""error""#, text: "error")),
    ]

    /// A value out of each bounded setting's bounds, as a variable or flag gives it.
    static let outOfBounds: [String: String] = [
        "host": "a\u{1}b", "port": "65536", "dataDirectory": "a\tb", "formsDirectory": "a\nb", "publicDirectory": "\u{7F}",
        "adminTokens": "short-token", "eventLoops": "257", "maxBodyBytes": "1023", "maxPendingBodyBytes": "1048575",
        "maxQueuedOutputBytes": "1048575", "maxConnectionsPerAddress": "10001", "maxValueLength": "0",
        "rateLimit.burst": "0", "rateLimit.perSecond": "nan", "synchronous": "OFF", "store.maxGroupSize": "100001",
        "webhooks.concurrency": "0", "webhooks.timeoutSeconds": "inf", "webhooks.leaseSeconds": "10",
        "webhooks.retrySchedule": "5,-1", "secretKey": String(key(0).dropLast(4)), "logLevel": "verbose",
        "database.url": "mysql://a:hunter2hunter2@db/one", "database.maxConnections": "0",
        "database.statementTimeoutSeconds": "0",
        "publicUrl": "ftp://a.example", "storage.url": "http://a.example", "storage.endpoint": "ftp://a.example",
        "storage.region": "a\u{1}b", "uploads.maxFileBytes": "1023", "uploads.maxInProgress": "0",
        "uploads.maxInProgressPerClient": "0", "uploads.bytesPerSecondPerClient": "1023", "uploads.minFreeBytes": "-1",
        "uploads.keepUnboundHours": "0", "files.linkDays": "366", "drafts.ttlDays": "3651",
        "drafts.maxPerClientPerHour": "0", "drafts.maxRevisions": "1000001", "metrics.token": "short", "retention.days": "36501",
    ]

    /// The base64 of 32 bytes of `byte`.
    static func key(_ byte: UInt8) -> String { Data(repeating: byte, count: 32).base64EncodedString() }

    static var declaredFlags: [Setting] { AppConfiguration.settings.filter { $0.flag != nil } }

    @Test func everySettingHasSamplesAndTheyDiffer() {
        let keys = AppConfiguration.settings.map(\.key)
        #expect(Set(keys).count == keys.count, "a key is declared twice")
        #expect(Set(Self.samples.keys) == Set(keys))
        #expect(Set(Self.outOfBounds.keys) == Set(AppConfiguration.settings.filter { !$0.bounds.isEmpty }.map(\.key)))
    }

    @Test(arguments: AppConfiguration.settings)
    func reachableByKeyVariableAndFlag(_ setting: Setting) async throws {
        let sample = try #require(Self.samples[setting.key]).first
        let dir = try TemporaryDirectory()
        defer { dir.remove() }

        let fromFile = try await AppConfiguration.load(file: try Self.write(setting, sample, in: dir), environment: [:])
        #expect(setting.value(fromFile) != setting.value(AppConfiguration()), "the sample is the default")
        let fromVariable = try await AppConfiguration.load(file: nil, environment: [setting.environmentName: sample.text])
        #expect(setting.value(fromVariable) == setting.value(fromFile))
        if setting.flag != nil {
            let fromFlag = try await AppConfiguration.load(file: nil, overrides: try Self.flags(setting, sample), environment: [:])
            #expect(setting.value(fromFlag) == setting.value(fromFile))
        }
    }

    @Test(arguments: AppConfiguration.settings.filter { !$0.bounds.isEmpty })
    func boundsAreEnforcedNamingTheSetting(_ setting: Setting) async throws {
        let value = try #require(Self.outOfBounds[setting.key])
        var sources: [(overrides: [String: String], environment: [String: String])] = [([:], [setting.environmentName: value])]
        if setting.flag != nil { sources.append((try Self.flags(setting, Sample(json: "", text: value)), [:])) }
        for (overrides, environment) in sources {
            do {
                _ = try await AppConfiguration.load(file: nil, overrides: overrides, environment: environment)
                Issue.record("\(setting.key) = \(value.debugDescription) was accepted")
            } catch let error as ConfigurationError {
                #expect(error.key == setting.key)
                #expect("\(error)".contains("'\(setting.key)'"))
                if setting.isSecret { #expect(!"\(error)".contains(value)) }
            }
        }
    }

    @Test(arguments: AppConfiguration.settings)
    func flagOverVariableOverFileOverDefault(_ setting: Setting) async throws {
        let (first, second) = try #require(Self.samples[setting.key])
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try Self.write(setting, first, in: dir)
        let variable = [setting.environmentName: second.text]

        let none = try await AppConfiguration.load(file: dir.path + "/missing.json", environment: [:])
        let fileOnly = try await AppConfiguration.load(file: file, environment: [:])
        let fileAndVariable = try await AppConfiguration.load(file: file, environment: variable)
        let variableOnly = try await AppConfiguration.load(file: nil, environment: variable)
        #expect(setting.value(none) == setting.value(AppConfiguration()))
        #expect(setting.value(fileOnly) != setting.value(fileAndVariable))
        #expect(setting.value(fileAndVariable) == setting.value(variableOnly))
        if setting.flag != nil {
            let all = try await AppConfiguration.load(file: file, overrides: try Self.flags(setting, first), environment: variable)
            #expect(setting.value(all) == setting.value(fileOnly))
        }
    }

    /// Every flag of `serve` is a declared setting's, `--config` and `--port-file` aside, and each
    /// declared flag hands its value on under its own key and no other.
    @Test func theFlagsAreTheDeclaredOnes() async throws {
        #expect(Mirror(reflecting: SettingFlags()).children.count == Self.declaredFlags.count)
        // Any user on the machine can read a process's arguments: the one secret with a flag is a URL
        // whose password the flag refuses.
        #expect(Self.declaredFlags.filter(\.isSecret).map(\.key) == ["database.url"])
        for setting in Self.declaredFlags {
            let sample = try #require(Self.samples[setting.key]).first
            #expect(try Array(Self.flags(setting, sample).keys) == [setting.key])
        }
        let dump = try await Offload.blocking { try OperationsTests.run(["serve", "--experimental-dump-help"]) }
        #expect(dump.status == 0)
        let flags = try Self.longNames(inDump: Data(dump.output.utf8))
        #expect(flags == Set(Self.declaredFlags.compactMap(\.flag)).union(["config", "port-file", "help", "version"]))
    }

    @Test func theDocumentHoldsTheGeneratedTable() throws {
        let path = Repo.root.appendingPathComponent("docs/configuration.md").path
        let document = try String(contentsOfFile: path, encoding: .utf8)
        let updated = try #require(SettingsTable.update(document), "docs/configuration.md lacks the settings markers")
        #expect(updated == document, "docs/configuration.md is out of date: run `formhouse settings --update docs/configuration.md`")
    }

    /// The shipped file lists every setting that is not a secret, at its default.
    @Test func theShippedFileHoldsTheDefaults() async throws {
        let path = Repo.root.appendingPathComponent("config/formhouse.json").path
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        #expect(Set(Self.keys(of: object)) == Set(AppConfiguration.settings.filter { !$0.isSecret }.map(\.key)))
        let shipped = try await AppConfiguration.load(file: path, environment: [:])
        for setting in AppConfiguration.settings {
            #expect(setting.value(shipped) == setting.value(AppConfiguration()), "\(setting.key)")
        }
    }

    /// `{"a": {"b": value}}` for the key `a.b`, in a file in `dir`.
    static func write(_ setting: Setting, _ sample: Sample, in dir: TemporaryDirectory) throws -> String {
        var json = sample.json
        for component in setting.key.split(separator: ".").reversed() { json = "{\"\(component)\": \(json)}" }
        let file = dir.path + "/formhouse.json"
        try json.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The overrides `serve` hands on when given the setting's flag with `sample`.
    static func flags(_ setting: Setting, _ sample: Sample) throws -> [String: String] {
        let flag = "--" + (setting.flag ?? "")
        return try SettingFlags.parse(setting.kind == .boolean ? [flag] : [flag, sample.text]).overrides
    }

    static func keys(of object: [String: Any], prefix: String = "") -> [String] {
        object.flatMap { key, value in
            (value as? [String: Any]).map { keys(of: $0, prefix: prefix + key + ".") } ?? [prefix + key]
        }
    }

    /// The long names of the options and flags in argument-parser's `--experimental-dump-help` output.
    static func longNames(inDump data: Data) throws -> Set<String> {
        struct Dump: Decodable {
            struct Command: Decodable { let arguments: [Argument]? }
            struct Argument: Decodable { let names: [Name]? }
            struct Name: Decodable { let kind: String; let name: String }
            let command: Command
        }
        let names = try JSONDecoder().decode(Dump.self, from: data).command.arguments?.flatMap { $0.names ?? [] } ?? []
        return Set(names.filter { $0.kind == "long" }.map(\.name))
    }
}

extension Setting: CustomTestStringConvertible {
    public var testDescription: String { key }
}
