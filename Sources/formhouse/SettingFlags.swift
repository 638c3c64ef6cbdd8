import ArgumentParser
import FormhouseApp
import PostgresFormStore

/// The `serve` flags that each set one of ``AppConfiguration/settings``: named and explained by that
/// declaration, and handed to the configuration reader by key, so they take precedence over the
/// environment and the file. ArgumentParser needs each as a property; a test checks that the
/// properties and the declared flags are the same set.
struct SettingFlags: ParsableArguments {
    @Option(name: .setting("host"), help: .setting("host")) var host: String?
    // Unconditional, so `--port -1` is a port to refuse rather than a missing value and a flag "-1".
    @Option(name: .setting("port"), parsing: .unconditional, help: .setting("port")) var port: Int?
    @Option(name: .setting("dataDirectory"), help: .setting("dataDirectory")) var dataDirectory: String?
    @Option(name: .setting("formsDirectory"), help: .setting("formsDirectory")) var formsDirectory: String?
    @Option(name: .setting("publicDirectory"), help: .setting("publicDirectory")) var publicDirectory: String?
    @Option(name: .setting("corsOrigins"), help: .setting("corsOrigins")) var corsOrigins: String?
    @Option(name: .setting("eventLoops"), parsing: .unconditional, help: .setting("eventLoops")) var eventLoops: Int?
    @Option(name: .setting("maxBodyBytes"), parsing: .unconditional, help: .setting("maxBodyBytes")) var maxBodyBytes: Int?
    @Option(name: .setting("rateLimit.burst"), parsing: .unconditional, help: .setting("rateLimit.burst"))
    var rateLimitBurst: Int?
    @Option(name: .setting("rateLimit.perSecond"), parsing: .unconditional, help: .setting("rateLimit.perSecond"))
    var rateLimitPerSecond: Double?
    @Option(name: .setting("database.url"), help: .setting("database.url")) var databaseURL: String?
    @Option(name: .setting("logLevel"), help: .setting("logLevel")) var logLevel: String?
    @Flag(name: .setting("webhooks.allowPrivate"), help: .setting("webhooks.allowPrivate")) var allowPrivateWebhooks = false

    /// Every user of the machine can read a process's arguments (`ps`), so a password goes in the
    /// environment or the configuration file, never in a flag.
    func validate() throws {
        if let databaseURL, let settings = try? PostgresConnectionSettings(url: databaseURL), settings.password != nil {
            throw ValidationError(
                "--database-url must not hold a password: other users of the machine can read a command line; "
                    + "give the URL in FORMHOUSE_DATABASE_URL or the configuration file")
        }
    }

    /// The flags given, keyed like the JSON file, as text for the reader to parse as it parses a variable.
    var overrides: [String: String] {
        var values: [String: String] = [:]
        values["host"] = host
        values["port"] = port.map(String.init)
        values["dataDirectory"] = dataDirectory
        values["formsDirectory"] = formsDirectory
        values["publicDirectory"] = publicDirectory
        values["corsOrigins"] = corsOrigins
        values["eventLoops"] = eventLoops.map(String.init)
        values["maxBodyBytes"] = maxBodyBytes.map(String.init)
        values["rateLimit.burst"] = rateLimitBurst.map(String.init)
        values["rateLimit.perSecond"] = rateLimitPerSecond.map { String($0) }
        values["database.url"] = databaseURL
        values["logLevel"] = logLevel
        if allowPrivateWebhooks { values["webhooks.allowPrivate"] = "true" }
        return values
    }
}

extension AppConfiguration {
    /// The declared setting with a flag, by key; a property of ``SettingFlags`` naming another is a
    /// programming mistake, stopped at the first parse (and by the tests).
    static func flagged(_ key: String) -> Setting {
        guard let setting = settings.first(where: { $0.key == key }), setting.flag != nil else {
            preconditionFailure("no setting with a flag is declared for \(key)")
        }
        return setting
    }
}

extension NameSpecification {
    /// The long name the declaration gives the setting's flag.
    static func setting(_ key: String) -> NameSpecification {
        .customLong(AppConfiguration.flagged(key).flag ?? key)
    }
}

extension ArgumentHelp {
    /// The setting's summary and bounds, and the variable that sets it too.
    static func setting(_ key: String) -> ArgumentHelp {
        let setting = AppConfiguration.flagged(key)
        let bounds = setting.bounds.isEmpty ? "" : " Allowed: \(setting.bounds)."
        return ArgumentHelp("\(setting.summary)\(bounds) Variable: \(setting.environmentName).")
    }
}
