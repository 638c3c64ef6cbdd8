import Configuration
import FormStore
import Foundation

/// Everything an operator can set, with the defaults the server embeds.
///
/// Values are read, lowest priority first, from the built-in defaults, `config/formhouse.json`,
/// `FORMHOUSE_*` environment variables, and command-line flags (see ``AppConfiguration/load(file:overrides:environment:)``).
public struct AppConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var dataDirectory = "./data"
    public var formsDirectory = "./config/forms"
    public var publicDirectory = "./Public"
    /// Admin bearer tokens. Never logged.
    public var adminTokens: [String] = []
    public var corsOrigins: [String] = []
    /// Event loop threads; 0 means one per core.
    public var eventLoops = 0
    public var maxBodyBytes = 1 << 20
    /// Bytes all bodies still arriving may hold together; past it a new one gets 503.
    public var maxPendingBodyBytes = 256 << 20
    /// Bytes all answers not yet read by their clients may hold together; past it, stalled ones close.
    public var maxQueuedOutputBytes = 256 << 20
    /// Open connections one client address may have (raise it behind a proxy, where all share one).
    public var maxConnectionsPerAddress = 1_024
    public var maxValueLength = 10_000
    /// Submissions per client address: bucket size and refill per second.
    public var rateLimitBurst = 60
    public var rateLimitPerSecond = 10.0
    /// `FULL` keeps every acknowledged submission through power loss; `NORMAL` only for benchmarks.
    public var synchronous = SQLiteStoreConfiguration.Synchronous.full
    /// The delivery worker: how many in flight, timeouts, and the retry schedule in seconds.
    public var webhookConcurrency = 256
    public var webhookTimeoutSeconds = 10.0
    public var webhookRetrySchedule: [Double] = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000]
    /// How long a claimed delivery stays leased to this process; after a crash it is retried then.
    public var webhookLeaseSeconds = 60.0
    /// Submissions committed together at most (1 turns group commit off: a baseline for benchmarks).
    public var storeMaxGroupSize = 256
    /// Allows `http` webhook URLs and private, loopback and link-local destinations (tests, intranets).
    public var webhookAllowPrivate = false
    /// Base64 of 32 bytes that encrypt webhook secrets at rest; a key file in the data directory otherwise.
    public var secretKey: String?
    public var logLevel = "info"

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
        for (key, value) in overrides { flags[Self.environmentName(of: key)] = value }
        var providers: [any ConfigProvider] = []
        if !flags.isEmpty {
            providers.append(EnvironmentVariablesProvider(environmentVariables: flags).prefixKeys(with: "formhouse"))
        }
        // An empty variable (`FORMHOUSE_EVENT_LOOPS=` in a templated env file) means "not set".
        let environment = environment.filter { !$0.value.trimmingCharacters(in: .whitespaces).isEmpty }
        providers.append(
            EnvironmentVariablesProvider(
                environmentVariables: environment,
                secretsSpecifier: .specific(["FORMHOUSE_ADMIN_TOKENS", "FORMHOUSE_SECRET_KEY"])
            ).prefixKeys(with: "formhouse")
        )
        if let file {
            try ConfigFileCheck.check(file: file)
            do {
                providers.append(try await FileProvider<JSONSnapshot>(filePath: .init(file), allowMissing: true))
            } catch {
                throw ConfigurationError(key: file, message: "the file cannot be read as a JSON object (\(error))")
            }
        }
        let problems = UnreadableSettings()
        let settings = try AppConfiguration(reader: ConfigReader(providers: providers, accessReporter: problems))
        // A value that is set but cannot be read as its type would otherwise fall back to the default
        // without a word (a port of "abc" served on 8080).
        if let (key, type, secret) = problems.first {
            throw ConfigurationError(key: key, message: secret
                ? "is set but is not a valid \(type)"
                : "is set to something that is not a valid \(type)")
        }
        return settings
    }

    /// The `FORMHOUSE_*` variables in `environment` that name no setting (`FORMHOUSE_ADMIN_TOKEN`),
    /// sorted: they are ignored, so a misspelling would otherwise go unnoticed. Names only, never values.
    public static func unknownEnvironmentVariables(
        in environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String] {
        let known = Set(ConfigFileCheck.settings.keys.map(environmentName(of:)))
        return environment.keys.filter { $0.hasPrefix("FORMHOUSE_") && !known.contains($0) }.sorted()
    }

    /// `rateLimit.perSecond` → `FORMHOUSE_RATE_LIMIT_PER_SECOND`, as swift-configuration names variables.
    static func environmentName(of key: String) -> String {
        var name = "FORMHOUSE"
        for component in key.split(separator: ".") {
            name += "_"
            for character in component {
                if character.isUppercase { name += "_" }
                name += character.uppercased()
            }
        }
        return name
    }

    init(reader config: ConfigReader) throws {
        let d = AppConfiguration()
        host = config.string(forKey: "host", default: d.host)
        port = config.int(forKey: "port", default: d.port)
        dataDirectory = config.string(forKey: "dataDirectory", default: d.dataDirectory)
        formsDirectory = config.string(forKey: "formsDirectory", default: d.formsDirectory)
        publicDirectory = config.string(forKey: "publicDirectory", default: d.publicDirectory)
        // Empty tokens are kept for validate() to refuse: dropped, `[""]` or a stray comma closed the
        // admin API (or left one token fewer) without a word.
        adminTokens = config.stringArray(forKey: "adminTokens", isSecret: true, default: d.adminTokens)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        corsOrigins = config.stringArray(forKey: "corsOrigins", default: d.corsOrigins)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        eventLoops = config.int(forKey: "eventLoops", default: d.eventLoops)
        maxBodyBytes = config.int(forKey: "maxBodyBytes", default: d.maxBodyBytes)
        maxPendingBodyBytes = config.int(forKey: "maxPendingBodyBytes", default: d.maxPendingBodyBytes)
        maxQueuedOutputBytes = config.int(forKey: "maxQueuedOutputBytes", default: d.maxQueuedOutputBytes)
        maxConnectionsPerAddress = config.int(forKey: "maxConnectionsPerAddress", default: d.maxConnectionsPerAddress)
        maxValueLength = config.int(forKey: "maxValueLength", default: d.maxValueLength)
        rateLimitBurst = config.int(forKey: "rateLimit.burst", default: d.rateLimitBurst)
        rateLimitPerSecond = config.double(forKey: "rateLimit.perSecond", default: d.rateLimitPerSecond)
        let synchronousName = config.string(forKey: "synchronous", default: d.synchronous.rawValue).uppercased()
        guard let synchronous = SQLiteStoreConfiguration.Synchronous(rawValue: synchronousName) else {
            throw ConfigurationError(key: "synchronous", message: "must be FULL or NORMAL")
        }
        self.synchronous = synchronous
        webhookConcurrency = config.int(forKey: "webhooks.concurrency", default: d.webhookConcurrency)
        webhookTimeoutSeconds = config.double(forKey: "webhooks.timeoutSeconds", default: d.webhookTimeoutSeconds)
        webhookRetrySchedule = config.doubleArray(forKey: "webhooks.retrySchedule", default: d.webhookRetrySchedule)
        webhookAllowPrivate = config.bool(forKey: "webhooks.allowPrivate", default: d.webhookAllowPrivate)
        webhookLeaseSeconds = config.double(forKey: "webhooks.leaseSeconds", default: d.webhookLeaseSeconds)
        storeMaxGroupSize = config.int(forKey: "store.maxGroupSize", default: d.storeMaxGroupSize)
        secretKey = config.string(forKey: "secretKey", isSecret: true)
        logLevel = config.string(forKey: "logLevel", default: d.logLevel).lowercased()
        try validate()
    }

    static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// Refuses settings that would make the server unsafe or unusable, with the key to fix. Every
    /// number has an upper bound too: durations become integers (milliseconds, seconds) further on,
    /// where NaN, infinity or 1e300 would trap.
    func validate() throws {
        func fail(_ key: String, _ why: String) throws -> Never { throw ConfigurationError(key: key, message: why) }
        // An empty path is the working directory to Foundation, and was the whole filesystem to the
        // static file server; a control character cannot be meant.
        for (key, value) in [("host", host), ("dataDirectory", dataDirectory), ("formsDirectory", formsDirectory),
                             ("publicDirectory", publicDirectory)] {
            if value.trimmingCharacters(in: .whitespaces).isEmpty { try fail(key, "must not be empty") }
            if value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                try fail(key, "must not contain control characters")
            }
        }
        if !(0...65_535).contains(port) { try fail("port", "must be 0–65535 (0 picks a free port)") }
        if !(0...256).contains(eventLoops) { try fail("eventLoops", "must be 0–256 (0 means one per core)") }
        if maxBodyBytes < 1_024 || maxBodyBytes > 64 << 20 { try fail("maxBodyBytes", "must be between 1 KiB and 64 MiB") }
        if maxPendingBodyBytes < maxBodyBytes || maxPendingBodyBytes > 1 << 40 {
            try fail("maxPendingBodyBytes", "must be at least maxBodyBytes (\(maxBodyBytes)) and at most 1 TiB")
        }
        // Above the server's 10,000 connections in all it would mean nothing.
        if !(1...10_000).contains(maxConnectionsPerAddress) {
            try fail("maxConnectionsPerAddress", "must be between 1 and 10000")
        }
        if maxQueuedOutputBytes < 1 << 20 || maxQueuedOutputBytes > 1 << 40 {
            try fail("maxQueuedOutputBytes", "must be between 1 MiB and 1 TiB")
        }
        if !(1...(64 << 20)).contains(maxValueLength) { try fail("maxValueLength", "must be between 1 and 67108864") }
        if !(1...1_000_000_000).contains(rateLimitBurst) { try fail("rateLimit.burst", "must be between 1 and 1000000000") }
        if !(0.001...1_000_000_000).contains(rateLimitPerSecond) {
            try fail("rateLimit.perSecond", "must be a number between 0.001 and 1000000000")
        }
        if webhookRetrySchedule.isEmpty || webhookRetrySchedule.count > 100
            || !webhookRetrySchedule.allSatisfy({ (0...2_592_000).contains($0) }) {
            try fail("webhooks.retrySchedule", "must list 1 to 100 delays, each 0 to 2592000 seconds (30 days)")
        }
        if !(1...10_000).contains(webhookConcurrency) { try fail("webhooks.concurrency", "must be between 1 and 10000") }
        if !(0.001...3_600).contains(webhookTimeoutSeconds) {
            try fail("webhooks.timeoutSeconds", "must be a number of seconds between 0.001 and 3600")
        }
        if !(1...86_400).contains(webhookLeaseSeconds) {
            try fail("webhooks.leaseSeconds", "must be a number of seconds between 1 and 86400")
        }
        // Nothing renews a lease while a send is in flight: a shorter lease lets another claim send
        // the same delivery again while the first is still waiting for its answer.
        if webhookLeaseSeconds < webhookTimeoutSeconds + 1 {
            try fail("webhooks.leaseSeconds", "must be at least webhooks.timeoutSeconds + 1 (\(webhookTimeoutSeconds + 1) seconds)")
        }
        if !(1...100_000).contains(storeMaxGroupSize) { try fail("store.maxGroupSize", "must be between 1 and 100000") }
        if !Self.logLevels.contains(logLevel) { try fail("logLevel", "must be one of " + Self.logLevels.joined(separator: ", ")) }
        if adminTokens.contains(where: \.isEmpty) {
            try fail("adminTokens", "holds an empty token (a stray comma in FORMHOUSE_ADMIN_TOKENS?)")
        }
        if adminTokens.contains(where: { $0.count < 16 }) {
            try fail("adminTokens", "every admin token must be at least 16 characters")
        }
    }
}

/// A setting that cannot be used, named by its key so the operator can fix it.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var key: String
    public var message: String
    public var description: String { "configuration '\(key)': \(message)" }

    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }
}

/// Collects the settings that were present but could not be read as their type; swift-configuration's
/// reads with a default report these only to an access reporter.
final class UnreadableSettings: AccessReporter, @unchecked Sendable {
    private let lock = NSLock()
    private var found: [(key: String, type: String, secret: Bool)] = []

    func report(_ event: AccessEvent) {
        let lookupFailed = event.providerResults.contains { if case .failure = $0.result { true } else { false } }
        guard event.conversionError != nil || lookupFailed else { return }
        let key = event.metadata.key.components.joined(separator: ".")
        let secret = (try? event.result.get())??.isSecret ?? false
            || ["adminTokens", "secretKey"].contains(key)
        lock.withLock { found.append((key, Self.describe(event.metadata.valueType), secret)) }
    }

    var first: (key: String, type: String, secret: Bool)? { lock.withLock { found.first } }

    private static func describe(_ type: ConfigType) -> String {
        switch type {
        case .int: "whole number"
        case .double: "number"
        case .bool: "boolean (true or false)"
        case .stringArray: "list of strings"
        case .doubleArray: "list of numbers"
        case .intArray: "list of whole numbers"
        case .boolArray: "list of booleans"
        default: "\(type)"
        }
    }
}
