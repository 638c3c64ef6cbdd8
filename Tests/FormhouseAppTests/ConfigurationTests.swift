import Foundation
import Testing
@testable import FormhouseApp

/// Defaults, then the JSON file, then `FORMHOUSE_*` variables, then flags.
struct ConfigurationTests {
    @Test func layersOverrideInOrder() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.path + "/formhouse.json"
        try #"{"port": 9001, "host": "0.0.0.0", "rateLimit": {"burst": 5}, "corsOrigins": ["https://a.example"]}"#
            .write(toFile: file, atomically: true, encoding: .utf8)

        let fromFile = try await AppConfiguration.load(file: file, environment: [:])
        #expect(fromFile.port == 9001)
        #expect(fromFile.host == "0.0.0.0")
        #expect(fromFile.rateLimitBurst == 5)
        #expect(fromFile.corsOrigins == ["https://a.example"])
        #expect(fromFile.rateLimitPerSecond == AppConfiguration().rateLimitPerSecond)

        let environment = ["FORMHOUSE_PORT": "9002", "FORMHOUSE_RATE_LIMIT_BURST": "7",
                           "FORMHOUSE_ADMIN_TOKENS": "aaaaaaaaaaaaaaaa1, bbbbbbbbbbbbbbbb2",
                           "FORMHOUSE_WEBHOOKS_ALLOW_PRIVATE": "true"]
        let fromEnvironment = try await AppConfiguration.load(file: file, environment: environment)
        #expect(fromEnvironment.port == 9002)
        #expect(fromEnvironment.rateLimitBurst == 7)
        #expect(fromEnvironment.adminTokens == AdminToken.owners(["aaaaaaaaaaaaaaaa1", "bbbbbbbbbbbbbbbb2"]))
        #expect(fromEnvironment.webhookAllowPrivate)

        let fromFlags = try await AppConfiguration.load(
            file: file, overrides: ["port": "0", "rateLimit.perSecond": "2.5", "dataDirectory": "/tmp/x"], environment: environment)
        #expect(fromFlags.port == 0)
        #expect(fromFlags.rateLimitPerSecond == 2.5)
        #expect(fromFlags.rateLimitBurst == 7)
        #expect(fromFlags.dataDirectory == "/tmp/x")
    }

    @Test func refusesUnsafeSettingsNamingTheKey() async throws {
        await #expect(throws: ConfigurationError.self) {
            _ = try await AppConfiguration.load(file: nil, environment: ["FORMHOUSE_ADMIN_TOKENS": "short"])
        }
        do {
            _ = try await AppConfiguration.load(file: nil, environment: ["FORMHOUSE_PORT": "70000"])
            Issue.record("port 70000 was accepted")
        } catch let error as ConfigurationError {
            #expect(error.key == "port")
        }
    }

    @Test func eventLoopsDefaultToOnePerCoreAndAreBounded() async throws {
        #expect(try await AppConfiguration.load(file: nil, environment: [:]).eventLoops == 0)
        #expect(try await AppConfiguration.load(file: nil, environment: ["FORMHOUSE_EVENT_LOOPS": "3"]).eventLoops == 3)
        #expect(try await AppConfiguration.load(file: nil, overrides: ["eventLoops": "1"], environment: ["FORMHOUSE_EVENT_LOOPS": "3"]).eventLoops == 1)
        do {
            _ = try await AppConfiguration.load(file: nil, environment: ["FORMHOUSE_EVENT_LOOPS": "-1"])
            Issue.record("eventLoops -1 was accepted")
        } catch let error as ConfigurationError {
            #expect(error.key == "eventLoops")
        }
    }

    /// The key a configuration error names, or nil when the settings were accepted.
    private func refusedKey(file: String? = nil, _ environment: [String: String]) async -> String? {
        do {
            _ = try await AppConfiguration.load(file: file, environment: environment)
            return nil
        } catch let error as ConfigurationError {
            return error.key
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func valuesThatAreSetButUnreadableAreRefusedNotDefaulted() async throws {
        #expect(await refusedKey(["FORMHOUSE_PORT": "abc"]) == "port")
        #expect(await refusedKey(["FORMHOUSE_MAX_BODY_BYTES": "12abc"]) == "maxBodyBytes")
        #expect(await refusedKey(["FORMHOUSE_RATE_LIMIT_PER_SECOND": "fast"]) == "rateLimit.perSecond")
        #expect(await refusedKey(["FORMHOUSE_WEBHOOKS_ALLOW_PRIVATE": "maybe"]) == "webhooks.allowPrivate")
        #expect(await refusedKey(["FORMHOUSE_WEBHOOKS_RETRY_SCHEDULE": "5,abc"]) == "webhooks.retrySchedule")
        #expect(await refusedKey(["FORMHOUSE_LOG_LEVEL": "verbose"]) == "logLevel")
        // An empty variable is not set, rather than unreadable.
        #expect(await refusedKey(["FORMHOUSE_EVENT_LOOPS": "", "FORMHOUSE_PORT": " "]) == nil)

        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.path + "/formhouse.json"
        for (json, key) in [(#"{"port": "18651"}"#, "port"), (#"{"port": 18652.7}"#, "port"),
                            (#"{"adminTokens": "file-token-aaaaaaaaaaaaaaaa"}"#, "adminTokens"),
                            // The JSON snapshot alone read true as 1 and 2 as true, and skipped objects.
                            (#"{"port": true}"#, "port"), (#"{"eventLoops": false}"#, "eventLoops"),
                            (#"{"webhooks": {"allowPrivate": 2}}"#, "webhooks.allowPrivate"),
                            (#"{"maxBodyBytes": {"bytes": 5}}"#, "maxBodyBytes"), (#"{"logLevel": {"level": "x"}}"#, "logLevel"),
                            (#"{"adminTokens": ["file-token-aaaaaaaaaaaaaaaa", 5]}"#, "adminTokens[1]"),
                            (#"{"webhooks": [1, 2]}"#, "webhooks"), (#"{"rateLimit": 5}"#, "rateLimit"),
                            (#"{"webhooks": {"retrySchedule": [5, "x"]}}"#, "webhooks.retrySchedule"),
                            // A misspelled key is not silently the default.
                            (#"{"prot": 1234}"#, "prot"), (#"{"webhooks": {"timeout": 3}}"#, "webhooks.timeout")] {
            try json.write(toFile: file, atomically: true, encoding: .utf8)
            #expect(await refusedKey(file: file, [:]) == key, "\(json)")
        }
        // A secret's text never appears in the message.
        do {
            _ = try await AppConfiguration.load(file: file, environment: [:])
        } catch {
            #expect(!"\(error)".contains("file-token"))
        }
        try "{not json".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await refusedKey(file: file, [:]) == file)
        try "[1]".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await refusedKey(file: file, [:]) == file)
        try #"{"port": 1, "port": 2}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await refusedKey(file: file, [:]) == file)
        // null is "not set", and a byte-order mark is no part of the JSON.
        try (Data([0xEF, 0xBB, 0xBF]) + Data(#"{"port": 18653, "secretKey": null, "webhooks": {"timeoutSeconds": null}}"#.utf8))
            .write(to: URL(fileURLWithPath: file))
        #expect(await refusedKey(file: file, [:]) == nil)
        #expect(try await AppConfiguration.load(file: file, environment: [:]).port == 18653)
        // The shipped file passes, and every key it has is one the check knows.
        #expect(await refusedKey(file: Repo.root.appendingPathComponent("config/formhouse.json").path, [:]) == nil)
    }

    @Test func numbersThatWouldTrapLaterAreRefused() async {
        for value in ["nan", "inf", "1e300", "0", "-1"] {
            #expect(await refusedKey(["FORMHOUSE_WEBHOOKS_TIMEOUT_SECONDS": value]) == "webhooks.timeoutSeconds", "\(value)")
            #expect(await refusedKey(["FORMHOUSE_WEBHOOKS_LEASE_SECONDS": value]) == "webhooks.leaseSeconds", "\(value)")
            #expect(await refusedKey(["FORMHOUSE_RATE_LIMIT_PER_SECOND": value]) == "rateLimit.perSecond", "\(value)")
        }
        for value in ["nan", "inf", "1e300", "-1", "5,inf"] {
            #expect(await refusedKey(["FORMHOUSE_WEBHOOKS_RETRY_SCHEDULE": value]) == "webhooks.retrySchedule", "\(value)")
        }
        #expect(await refusedKey(["FORMHOUSE_RATE_LIMIT_PER_SECOND": "1e-20"]) == "rateLimit.perSecond")
        // A lease that can run out while a send still waits for its answer would send it twice.
        #expect(await refusedKey(["FORMHOUSE_WEBHOOKS_LEASE_SECONDS": "3"]) == "webhooks.leaseSeconds")
        #expect(await refusedKey(["FORMHOUSE_WEBHOOKS_TIMEOUT_SECONDS": "120"]) == "webhooks.leaseSeconds")
        #expect(await refusedKey(["FORMHOUSE_WEBHOOKS_LEASE_SECONDS": "3", "FORMHOUSE_WEBHOOKS_TIMEOUT_SECONDS": "2"]) == nil)
        #expect(await refusedKey(["FORMHOUSE_WEBHOOKS_TIMEOUT_SECONDS": "0.5", "FORMHOUSE_RATE_LIMIT_PER_SECOND": "0.01"]) == nil)
        // The pending-body budget must hold at least one whole body.
        #expect(await refusedKey(["FORMHOUSE_MAX_PENDING_BODY_BYTES": "1000"]) == "maxPendingBodyBytes")
        #expect(await refusedKey(["FORMHOUSE_MAX_QUEUED_OUTPUT_BYTES": "1000"]) == "maxQueuedOutputBytes")
        #expect(await refusedKey(["FORMHOUSE_MAX_QUEUED_OUTPUT_BYTES": "1048576"]) == nil)
        #expect(await refusedKey(["FORMHOUSE_MAX_CONNECTIONS_PER_ADDRESS": "0"]) == "maxConnectionsPerAddress")
        #expect(await refusedKey(["FORMHOUSE_MAX_CONNECTIONS_PER_ADDRESS": "10000"]) == nil)
        #expect(await refusedKey(["FORMHOUSE_MAX_CONNECTIONS_PER_ADDRESS": "10001"]) == "maxConnectionsPerAddress")
        #expect(await refusedKey(["FORMHOUSE_MAX_PENDING_BODY_BYTES": "1048576"]) == nil)
        #expect(await refusedKey(["FORMHOUSE_MAX_PENDING_BODY_BYTES": "2048", "FORMHOUSE_MAX_BODY_BYTES": "4096"]) == "maxPendingBodyBytes")
    }

    @Test func environmentNames() {
        #expect(Setting.environmentName(of: "rateLimit.perSecond") == "FORMHOUSE_RATE_LIMIT_PER_SECOND")
        #expect(Setting.environmentName(of: "dataDirectory") == "FORMHOUSE_DATA_DIRECTORY")
    }

    /// An empty public directory served the whole filesystem, an empty data or forms directory meant the
    /// working directory, and an empty admin token closed the admin API: each without a word.
    @Test func emptyPathsHostsAndTokensAreRefused() async throws {
        for key in ["host", "dataDirectory", "formsDirectory", "publicDirectory"] {
            for value in ["", "  ", "x\u{0}y", "a\nb"] {
                do {
                    _ = try await AppConfiguration.load(file: nil, overrides: [key: value], environment: [:])
                    Issue.record("\(key) = \(value.debugDescription) was accepted")
                } catch let error as ConfigurationError {
                    #expect(error.key == key)
                }
            }
        }
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.path + "/formhouse.json"
        try #"{"dataDirectory": ""}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await refusedKey(file: file, [:]) == "dataDirectory")
        for tokens in [",", "aaaaaaaaaaaaaaaa1,", " , aaaaaaaaaaaaaaaa1"] {
            #expect(await refusedKey(["FORMHOUSE_ADMIN_TOKENS": tokens]) == "adminTokens", "\(tokens)")
        }
        try #"{"adminTokens": ["aaaaaaaaaaaaaaaa1", ""]}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await refusedKey(file: file, [:]) == "adminTokens[1]")
        #expect(await refusedKey(file: "", [:]) == "--config")
    }

    @Test func aSectionSetToNullIsNotSet() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.path + "/formhouse.json"
        try #"{"webhooks": null, "rateLimit": {"burst": null}, "port": 9003}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let settings = try await AppConfiguration.load(file: file, environment: [:])
        #expect(settings.port == 9003)
        #expect(settings.webhookConcurrency == AppConfiguration().webhookConcurrency)
        #expect(settings.rateLimitBurst == AppConfiguration().rateLimitBurst)
    }

    @Test func misspelledVariablesAreFoundByName() {
        let environment = ["FORMHOUSE_ADMIN_TOKEN": "secret-value", "FORMHOUSE_PROT": "1", "FORMHOUSE_PORT": "1",
                           "FORMHOUSE_WEBHOOKS_RETRY_SCHEDULE": "1", "HOME": "/root", "formhouse_port": "1"]
        #expect(AppConfiguration.unknownEnvironmentVariables(in: environment) == ["FORMHOUSE_ADMIN_TOKEN", "FORMHOUSE_PROT"])
    }
}
