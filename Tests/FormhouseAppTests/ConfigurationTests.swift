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
        #expect(fromEnvironment.adminTokens == ["aaaaaaaaaaaaaaaa1", "bbbbbbbbbbbbbbbb2"])
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

    @Test func environmentNames() {
        #expect(AppConfiguration.environmentName(of: "rateLimit.perSecond") == "FORMHOUSE_RATE_LIMIT_PER_SECOND")
        #expect(AppConfiguration.environmentName(of: "dataDirectory") == "FORMHOUSE_DATA_DIRECTORY")
    }
}
