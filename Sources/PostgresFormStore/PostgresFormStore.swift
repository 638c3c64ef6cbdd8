import FormStore
import Logging
import PostgresNIO
import Synchronization

/// The store on a PostgreSQL database that several nodes share: forms and their versions
/// (``FormStore/FormVersionStore``), submissions with group commit (``FormStore/SubmissionStore``),
/// webhooks and their delivery queue (``FormStore/WebhookStore``) and the store operations, with
/// change notifications from the other nodes.
public final class PostgresFormStore: Sendable {
    let client: PostgresClient
    let logger: Logger
    let configuration: PostgresStoreConfiguration
    private let runTask: Task<Void, Never>
    private let closed = Mutex(false)
    let submissionCommitter: GroupCommitter<NewSubmission, InsertOutcome>
    let deliveryObserver: DeliveryObserver
    let changeListener: ChangeListener

    /// Connects to the database, starts the connection pool and brings the schema up to date.
    ///
    /// - Parameter statementTimeout: How long one statement may run before the server cancels it.
    /// - Parameter configuration: Group sizes, the idempotency window and the waits.
    public init(
        settings: PostgresConnectionSettings, statementTimeout: Duration = .seconds(30),
        configuration: PostgresStoreConfiguration = .init(),
        logger: Logger = Logger(label: "formhouse.store.postgres")
    ) async throws {
        let milliseconds = statementTimeout.components.seconds * 1000
            + statementTimeout.components.attoseconds / 1_000_000_000_000_000
        // A 201 means committed: `synchronous_commit` is forced on whatever the server's default, as
        // a database set to `off` would acknowledge commits that a crash then loses.
        let startupParameters = [("statement_timeout", "\(milliseconds)"), ("synchronous_commit", "on")]
        var clientConfiguration = settings.clientConfiguration()
        clientConfiguration.options.additionalStartupParameters = startupParameters
        let client = PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        self.configuration = configuration
        runTask = Task { await client.run() }
        // Migrations run on a connection of their own: it fails at once with the server's reason when
        // the database cannot be reached (the pool would keep retrying), and closing it releases the
        // migration lock whatever happened.
        var single: PostgresConnection.Configuration
        // Form changes are reported from here on: what is cached after the store opens is reported stale.
        var lastChange: Int64 = 0
        do {
            single = try settings.connectionConfiguration()
            single.options.additionalStartupParameters = startupParameters
            let connection = try await PostgresConnection.connect(configuration: single, id: 0, logger: logger)
            do {
                try await PostgresSchema.migrate(on: connection, logger: logger)
                lastChange = try await ChangeListener.lastChange(on: connection, logger: logger)
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
        } catch {
            runTask.cancel()
            throw Self.storeError(error)
        }
        // The listener's own connection is named, so that an operator (or a test) can tell it apart.
        single.options.additionalStartupParameters.append(("application_name", ChangeListener.applicationName))
        let observer = DeliveryObserver()
        deliveryObserver = observer
        changeListener = ChangeListener(
            connection: single, client: client, lastChange: lastChange, configuration: configuration,
            deliveryObserver: observer, logger: logger)
        let writer = SubmissionGroupWriter(
            client: client, configuration: configuration, logger: logger, deliveryObserver: observer)
        submissionCommitter = GroupCommitter(
            maxGroupSize: configuration.maxGroupSize, maxGroupBytes: configuration.maxGroupBytes,
            // The webhook payload is built only if needed; it wraps the values, so count them twice.
            weight: { $0.record.rawBody.count + 2 * $0.record.values.utf8.count },
            logger: logger, asyncWrite: { try await writer.write($0) })
    }

    /// Whether ``close()`` was called: operations then fail at once, without waiting for the pool.
    var isClosed: Bool {
        closed.withLock { $0 }
    }

    /// Fails queued submissions and refuses new operations; the group being written finishes before
    /// the connection pool stops. The notification listener stops at once.
    public func close() {
        let wasClosed = closed.withLock { closed in
            defer { closed = true }
            return closed
        }
        if wasClosed { return }
        changeListener.stop()
        let committer = submissionCommitter
        let runTask = runTask
        Task {
            await committer.closeAndWait()
            runTask.cancel()
        }
    }

    /// Runs `body` in a transaction, its errors as ``FormStore/StoreError``.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await read { connection in
            try await connection.withTransaction(logger: self.logger) { connection in try await body(connection) }
        }
    }

    /// Runs `body` on a pooled connection outside a transaction, its errors as ``FormStore/StoreError``.
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        if isClosed { throw StoreError.unavailable("the store is closed") }
        do {
            return try await client.withConnection(waitingAtMost: configuration.connectionWait, body)
        } catch {
            throw Self.storeError(error)
        }
    }

    /// A store error for any failure: the store's own pass through, and every database or connection
    /// failure means the operation did not happen. The message is the server's, never the query or
    /// its values.
    /// A COMMIT that the server refused with an ERROR stored nothing; one whose connection was lost
    /// or whose session ended (FATAL) may have stored everything, which only the server knows
    /// (``FormStore/StoreError/outcomeUnknown(_:)``).
    static func storeError(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        if let transactionError = error as? PostgresTransactionError {
            if let commitError = transactionError.commitError,
               (commitError as? PSQLError)?.serverInfo?[.severity] != "ERROR" {
                return .outcomeUnknown("PostgreSQL: the connection was lost during COMMIT: \(commitError)")
            }
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
