import FormStore
import Logging
import PostgresNIO

/// The store on a PostgreSQL database that several nodes share. So far it holds forms and their
/// versions (``FormStore/FormVersionStore``) and webhooks (``FormStore/WebhookStore``); the server
/// cannot select it until it holds submissions and the store operations too.
public final class PostgresFormStore: Sendable {
    let client: PostgresClient
    let logger: Logger
    private let runTask: Task<Void, Never>

    /// Connects to the database, starts the connection pool and brings the schema up to date.
    ///
    /// - Parameter statementTimeout: How long one statement may run before the server cancels it.
    public init(
        settings: PostgresConnectionSettings, statementTimeout: Duration = .seconds(30),
        logger: Logger = Logger(label: "formhouse.store.postgres")
    ) async throws {
        let milliseconds = statementTimeout.components.seconds * 1000
            + statementTimeout.components.attoseconds / 1_000_000_000_000_000
        // A 201 means committed: `synchronous_commit` is forced on whatever the server's default, as
        // a database set to `off` would acknowledge commits that a crash then loses.
        let startupParameters = [("statement_timeout", "\(milliseconds)"), ("synchronous_commit", "on")]
        var configuration = settings.clientConfiguration()
        configuration.options.additionalStartupParameters = startupParameters
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        runTask = Task { await client.run() }
        // Migrations run on a connection of their own: it fails at once with the server's reason when
        // the database cannot be reached (the pool would keep retrying), and closing it releases the
        // migration lock whatever happened.
        do {
            var single = try settings.connectionConfiguration()
            single.options.additionalStartupParameters = startupParameters
            let connection = try await PostgresConnection.connect(configuration: single, id: 0, logger: logger)
            do {
                try await PostgresSchema.migrate(on: connection, logger: logger)
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
        } catch {
            runTask.cancel()
            throw Self.storeError(error)
        }
    }

    /// Stops the connection pool; later calls fail with ``FormStore/StoreError/unavailable(_:)``.
    public func close() {
        runTask.cancel()
    }

    /// Runs `body` in a transaction, its errors as ``FormStore/StoreError``.
    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Runs `body` on a pooled connection outside a transaction, its errors as ``FormStore/StoreError``.
    func read<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await client.withConnection { connection in try await body(connection) }
        } catch {
            throw Self.storeError(error)
        }
    }

    /// A store error for any failure: the store's own pass through, and every database or connection
    /// failure means the operation did not happen. The message is the server's, never the query or
    /// its values.
    static func storeError(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        if let transactionError = error as? PostgresTransactionError {
            return storeError(transactionError.closureError ?? transactionError.beginError
                ?? transactionError.commitError ?? transactionError.rollbackError ?? error)
        }
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                return .unavailable("PostgreSQL: \(message) (\(error.serverInfo?[.sqlState] ?? "no SQLSTATE"))")
            }
            return .unavailable("PostgreSQL: \(error.code)")
        }
        return .unavailable("PostgreSQL: \(error)")
    }
}
