import Configuration
import FormStore
import HTTPServer
import Foundation
import Logging

/// Everything an operator can set, with the defaults the server embeds; each property is one of
/// ``settings``, where its key, variable, flag, bounds and meaning are declared.
///
/// Values are read, lowest priority first, from the built-in defaults, `config/formhouse.json`,
/// `FORMHOUSE_*` environment variables, and command-line flags (see ``AppConfiguration/load(file:overrides:environment:)``).
public struct AppConfiguration: Sendable {
    public var host = serverDefaults.host
    public var port = serverDefaults.port
    public var dataDirectory = "./data"
    public var formsDirectory = "./config/forms"
    public var publicDirectory = "./Public"
    /// Admin bearer tokens, as digests with their names, roles and forms. Never logged.
    public var adminTokens: [AdminToken] = []
    public var corsOrigins: [String] = []
    /// Event loop threads; 0 means one per core.
    public var eventLoops = serverDefaults.eventLoops
    public var maxBodyBytes = serverDefaults.maxBodyBytes
    public var maxPendingBodyBytes = serverDefaults.maxPendingBodyBytes
    public var maxQueuedOutputBytes = serverDefaults.maxQueuedOutputBytes
    public var maxConnectionsPerAddress = serverDefaults.maxConnectionsPerAddress
    public var maxValueLength = 10_000
    /// Submissions per client address: bucket size and refill per second.
    public var rateLimitBurst = 60
    public var rateLimitPerSecond = 10.0
    public var synchronous = storeDefaults.synchronous
    /// The delivery worker: how many in flight, timeouts, and the retry schedule in seconds.
    public var webhookConcurrency = 256
    public var webhookTimeoutSeconds = 10.0
    public var webhookRetrySchedule: [Double] = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000]
    public var webhookLeaseSeconds = 60.0
    public var storeMaxGroupSize = storeDefaults.maxGroupSize
    public var webhookAllowPrivate = false
    /// Base64 of 32 bytes that encrypt webhook secrets at rest; a key file in the data directory otherwise. Never logged.
    public var secretKey: String?
    /// The PostgreSQL database every node shares; nil keeps the embedded SQLite store. Never logged
    /// (it may hold a password).
    public var databaseURL: String?
    public var databaseMaxConnections = 20
    public var databaseStatementTimeoutSeconds = 30.0
    /// Where clients and webhook receivers reach this server (`https://forms.example.org`), for the
    /// signed file links of webhook payloads (`publicUrl`); nil derives it from `host` and `port`.
    public var publicURL: String?
    /// Where uploaded files are kept: `file://…` or `s3://bucket/prefix`; nil is `files/` in the data directory.
    public var storageURL: String?
    public var storageEndpoint: String?
    public var storageRegion = "us-east-1"
    public var storageAccessKeyID: String?
    public var storageSecretAccessKey: String?
    /// The bearer token `GET /metrics` requires (`metrics.token`); nil leaves it open.
    public var metricsToken: String?
    public var uploadMaxFileBytes = 256 << 20
    public var uploadMaxInProgress = 256
    public var uploadMaxInProgressPerClient = 8
    public var uploadBytesPerSecondPerClient = 32 << 20
    public var uploadMinFreeBytes = 256 << 20
    public var uploadKeepUnboundHours = 24.0
    public var fileLinkDays = 7.0
    /// Days submissions are kept when their form sets no `retentionDays` (`retention.days`); 0 keeps them.
    public var retentionDays = 0
    public var draftTTLDays = 30.0
    public var draftMaxPerClientPerHour = 100
    public var draftMaxRevisions = 10_000
    public var logLevel = Logger.Level.info

    /// The HTTP server's and the store's own defaults, which the settings they configure take as
    /// theirs, so that each default is written once.
    static let serverDefaults = HTTPServerConfiguration()
    private static let storeDefaults = SQLiteStoreConfiguration()

    public init() {}

    /// Reads the configuration from `file` (missing file allowed), the environment, and `overrides`
    /// (command-line flags already parsed, keyed like the JSON file).
    public static func load(
        file: String?,
        overrides: [String: String] = [:],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> AppConfiguration {
        // Flags go through the environment provider too, so their text is parsed into numbers,
        // booleans and lists exactly as an environment variable's would be.
        var flags: [String: String] = [:]
        for (key, value) in overrides { flags[Setting.environmentName(of: key)] = value }
        var providers: [any ConfigProvider] = []
        if !flags.isEmpty {
            providers.append(EnvironmentVariablesProvider(environmentVariables: flags).prefixKeys(with: "formhouse"))
        }
        // An empty variable (`FORMHOUSE_EVENT_LOOPS=` in a templated env file) means "not set".
        let environment = environment.filter { !$0.value.trimmingCharacters(in: .whitespaces).isEmpty }
        providers.append(
            EnvironmentVariablesProvider(
                environmentVariables: environment,
                secretsSpecifier: .specific(Set(settings.filter(\.isSecret).map(\.environmentName)))
            ).prefixKeys(with: "formhouse")
        )
        var fileTokens: [AdminToken] = []
        if let file {
            if let tokens = try ConfigFileCheck.check(file: file)?["adminTokens"], tokens != .null {
                fileTokens = try AdminToken.parse(tokens, key: "adminTokens")
            }
            do {
                providers.append(try await FileProvider<SettingsFileSnapshot>(filePath: .init(file), allowMissing: true))
            } catch {
                throw ConfigurationError(key: file, message: "the file cannot be read as a JSON object (\(error))")
            }
        }
        let problems = UnreadableSettings()
        var configuration = AppConfiguration()
        configuration.adminTokens = fileTokens
        try configuration.read(ConfigReader(providers: providers, accessReporter: problems), problems: problems)
        return configuration
    }

    /// The `FORMHOUSE_*` variables in `environment` that name no setting (`FORMHOUSE_ADMIN_TOKEN`),
    /// sorted: they are ignored, so a misspelling would otherwise go unnoticed. Names only, never values.
    public static func unknownEnvironmentVariables(
        in environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String] {
        let known = Set(settings.map(\.environmentName))
        return environment.keys.filter { $0.hasPrefix("FORMHOUSE_") && !known.contains($0) }.sorted()
    }

    /// Reads and checks every setting in declaration order; the first that cannot be used throws.
    mutating func read(_ config: ConfigReader, problems: UnreadableSettings) throws {
        for setting in Self.settings {
            try setting.read(config, &self)
            // A value that is set but cannot be read as its type would otherwise fall back to the
            // default without a word (a port of "abc" would serve on 8080).
            if problems.contains(setting.key) {
                throw ConfigurationError(key: setting.key, message: setting.isSecret
                    ? "is set but is not \(setting.kind.phrase)"
                    : "is set to something that is not \(setting.kind.phrase)")
            }
        }
    }
}

/// Collects the keys of settings that were present but could not be read as their type;
/// swift-configuration's reads with a default report these only to an access reporter.
final class UnreadableSettings: AccessReporter, @unchecked Sendable {
    private let lock = NSLock()
    private var keys: Set<String> = []

    func report(_ event: AccessEvent) {
        let lookupFailed = event.providerResults.contains { if case .failure = $0.result { true } else { false } }
        guard event.conversionError != nil || lookupFailed else { return }
        let key = event.metadata.key.components.joined(separator: ".")
        lock.withLock { _ = keys.insert(key) }
    }

    func contains(_ key: String) -> Bool { lock.withLock { keys.contains(key) } }
}
