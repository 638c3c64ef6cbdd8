import FormStore
import Foundation
import Logging
import PostgresFormStore
import Synchronization
import Webhooks

/// The store and the secret key the configuration names: PostgreSQL, shared by several nodes, when
/// `database.url` is set; otherwise the embedded SQLite database in the data directory, which one
/// process holds at a time.
struct StoreSelection {
    let store: any FormStore
    let secrets: SecretBox
    /// Held while the SQLite store is open; nil with PostgreSQL, where nodes share nothing on disk.
    let directoryLock: DataDirectoryLock?
    /// Whether other processes write the store too (several nodes on one database).
    var isShared: Bool { directoryLock == nil }

    static func open(_ configuration: AppConfiguration, logger: Logger) async throws -> StoreSelection {
        if let url = configuration.databaseURL {
            // Every node must open the others' sealed webhook secrets and paging cursors.
            guard let key = configuration.secretKey else {
                throw ConfigurationError(
                    key: "secretKey", message: "is required with database.url: every node must hold the same key (FORMHOUSE_SECRET_KEY)")
            }
            let secrets = try secretBox(base64Key: key)
            let settings: PostgresConnectionSettings
            do {
                settings = try PostgresConnectionSettings(url: url)
            } catch {
                throw ConfigurationError(key: "database.url", message: error.description)
            }
            var options = PostgresStoreConfiguration()
            options.maxConnections = configuration.databaseMaxConnections
            options.statementTimeout = .milliseconds(Int64(configuration.databaseStatementTimeoutSeconds * 1000))
            options.maxGroupSize = configuration.storeMaxGroupSize
            // A node may start before its database (a compose file, a failover): it serves 503 meanwhile.
            options.startup = .keepTrying
            logger.info("using PostgreSQL", metadata: ["database": "\(settings)"])
            let store = try await PostgresFormStore(settings: settings, configuration: options, logger: Logger(label: "formhouse.store"))
            return StoreSelection(store: store, secrets: secrets, directoryLock: nil)
        }
        let dataURL = URL(fileURLWithPath: configuration.dataDirectory, isDirectory: true)
        let lock = try DataDirectoryLock(directory: dataURL)
        // The key before the database: a bad FORMHOUSE_SECRET_KEY stops the start before the database is made.
        let secrets: SecretBox
        if let key = configuration.secretKey {
            secrets = try secretBox(base64Key: key)
        } else {
            try FileManager.default.createDirectory(at: dataURL, withIntermediateDirectories: true)
            let keyFile = dataURL.appendingPathComponent("secret.key")
            secrets = try SecretBox.loadOrCreateKey(at: keyFile)
            // It is made 0600; one copied or restored with wider rights exposes every webhook secret.
            if let mode = (try? FileManager.default.attributesOfItem(atPath: keyFile.path))?[.posixPermissions] as? Int,
               mode & 0o077 != 0 {
                logger.warning("the secret-encryption key file is readable by other users; chmod 600 it",
                               metadata: ["file": "\(keyFile.path)", "mode": "\(String(mode, radix: 8))"])
            }
        }
        var storeConfiguration = SQLiteStoreConfiguration()
        storeConfiguration.synchronous = configuration.synchronous
        storeConfiguration.maxGroupSize = configuration.storeMaxGroupSize
        let store = try SQLiteFormStore(directory: dataURL, configuration: storeConfiguration)
        return StoreSelection(store: store, secrets: secrets, directoryLock: lock)
    }

    private static func secretBox(base64Key key: String) throws -> SecretBox {
        do {
            return try SecretBox(base64Key: key)
        } catch {
            throw ConfigurationError(key: "secretKey", message: "must be the base64 of exactly 32 bytes")
        }
    }
}
