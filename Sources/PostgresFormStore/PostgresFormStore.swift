import FormStore
import Logging
import PostgresNIO
import Synchronization

/// The store on a PostgreSQL database that several nodes share: forms and their versions
/// (``FormStore/FormVersionStore``), submissions with group commit (``FormStore/SubmissionStore``),
/// webhooks and their delivery queue (``FormStore/WebhookStore``), forms' daily counters
/// (``FormStore/FormStatsStore``) and the store operations, with change notifications from the other nodes.
public final class PostgresFormStore: Sendable {
    let client: PostgresClient
    let logger: Logger
    let configuration: PostgresStoreConfiguration
    private let runTask: Task<Void, Never>
    private let closed = Mutex(false)
    let submissionCommitter: GroupCommitter<NewSubmission, InsertOutcome>
    let rejectionCommitter: GroupCommitter<Rejection, Void>
    let deliveryObserver: DeliveryObserver
    let changeListener: ChangeListener

    /// Connects to the database, starts the connection pool and brings the schema up to date; with
    /// ``PostgresStoreConfiguration/Startup/keepTrying`` a database that cannot be reached yet is
    /// waited for in the background instead, every operation failing meanwhile (see ``checkReady()``).
    ///
    /// - Parameter configuration: Pool size, statement timeout, group sizes, the idempotency window and the waits.
    public init(
        settings: PostgresConnectionSettings, configuration: PostgresStoreConfiguration = .init(),
        logger: Logger = Logger(label: "formhouse.store.postgres")
    ) async throws {
        let timeout = configuration.statementTimeout.components
        let milliseconds = max(1, timeout.seconds * 1000 + timeout.attoseconds / 1_000_000_000_000_000)
        // A 201 means committed: `synchronous_commit` is forced on whatever the server's default, as
        // a database set to `off` would acknowledge commits that a crash then loses.
        let startupParameters = [("statement_timeout", "\(milliseconds)"), ("synchronous_commit", "on")]
        var clientConfiguration = settings.clientConfiguration()
        clientConfiguration.options.additionalStartupParameters = startupParameters
        clientConfiguration.options.maximumConnections = max(1, configuration.maxConnections)
        let client = PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        self.configuration = configuration
        runTask = Task { await client.run() }
        var single: PostgresConnection.Configuration
        do {
            single = try settings.connectionConfiguration()
        } catch {
            runTask.cancel()
            throw Self.storeError(error)
        }
        single.options.additionalStartupParameters = startupParameters
        // Migrations run on a connection of their own: it fails at once with the server's reason when
        // the database cannot be reached (the pool would keep retrying), and closing it releases the
        // migration lock whatever happened.
        let prepared: Result<Int64, StoreError>
        do {
            prepared = .success(try await Self.prepare(single, logger: logger))
        } catch {
            if configuration.startup == .failFast {
                runTask.cancel()
                throw Self.storeError(error)
            }
            prepared = .failure(Self.storeError(error))
        }
        // Form changes are reported from here on: what is cached after the store opens is reported stale.
        let lastChange = (try? prepared.get()) ?? 0
        // The listener's own connection is named, so that an operator (or a test) can tell it apart.
        var listening = single
        listening.options.additionalStartupParameters.append(("application_name", ChangeListener.applicationName))
        let observer = DeliveryObserver()
        deliveryObserver = observer
        changeListener = ChangeListener(
            connection: listening, client: client, lastChange: lastChange, configuration: configuration,
            deliveryObserver: observer, logger: logger)
        let writer = SubmissionGroupWriter(
            client: client, configuration: configuration, logger: logger, deliveryObserver: observer)
        submissionCommitter = GroupCommitter(
            maxGroupSize: configuration.maxGroupSize, maxGroupBytes: configuration.maxGroupBytes,
            // The webhook payload is built only if needed; it wraps the values, so count them twice.
            weight: { $0.record.rawBody.count + 2 * $0.record.values.utf8.count },
            logger: logger, asyncWrite: { try await writer.write($0) })
        let rejectionWriter = RejectionGroupWriter(client: client, configuration: configuration, logger: logger)
        rejectionCommitter = GroupCommitter(
            maxGroupSize: configuration.maxGroupSize, metricPrefix: "rejection_", logger: logger,
            asyncWrite: { try await rejectionWriter.write($0) })
        startupTask = Mutex(nil)
        switch prepared {
        case .success:
            startup = Mutex(.ready)
        case .failure(let error):
            startup = Mutex(.waiting(reason: error.description))
            logger.error("the database cannot be reached; retrying until it answers", metadata: ["error": "\(error)"])
            let connection = single
            startupTask.withLock { $0 = Task { [weak self] in await self?.keepTrying(connection) } }
        }
    }

    /// Migrates the schema on a connection of its own and returns the latest number of the form change feed.
    private static func prepare(_ configuration: PostgresConnection.Configuration, logger: Logger) async throws -> Int64 {
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        do {
            try await PostgresSchema.migrate(on: connection, logger: logger)
            let lastChange = try await ChangeListener.lastChange(on: connection, logger: logger)
            try await connection.close()
            return lastChange
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Where opening the store stands.
    private enum Startup {
        case ready
        /// The database has not answered since the store opened; the last reason why.
        case waiting(reason: String)
    }

    private let startup: Mutex<Startup>
    /// Retries preparing the database while it cannot be reached; cancelled by ``close()``.
    private let startupTask: Mutex<Task<Void, Never>?>

    /// Throws while the database has not answered since the store opened: until it has and its schema
    /// is up to date, every operation fails with ``FormStore/StoreError/unavailable(_:)``.
    func checkReady() throws {
        if case .waiting(let reason) = startup.withLock({ $0 }) {
            throw StoreError.unavailable("the database has not answered since the start: \(reason)")
        }
    }

    /// Prepares the database again and again, with a pause growing to 10 s, until it works or the
    /// store closes; every failure is logged, as the operator needs to see why the node is not ready.
    private func keepTrying(_ connection: PostgresConnection.Configuration) async {
        var pause = Duration.milliseconds(250)
        while !Task.isCancelled, !isClosed {
            try? await Task.sleep(for: pause)
            do {
                let lastChange = try await Self.prepare(connection, logger: logger)
                changeListener.skip(through: lastChange)
                startup.withLock { $0 = .ready }
                logger.notice("the database answers; the store is ready")
                return
            } catch {
                let reason = Self.storeError(error).description
                startup.withLock { $0 = .waiting(reason: reason) }
                logger.error("the database cannot be reached; retrying", metadata: ["error": "\(reason)", "pause": "\(pause)"])
            }
            pause = min(pause * 2, .seconds(10))
        }
    }

    /// Whether ``close()`` was called: operations then fail at once, without waiting for the pool.
    var isClosed: Bool {
        closed.withLock { $0 }
    }

    /// Fails queued submissions and rejections and refuses new operations; the groups being written
    /// finish before the connection pool stops. The notification listener stops at once.
    public func close() {
        let wasClosed = closed.withLock { closed in
            defer { closed = true }
            return closed
        }
        if wasClosed { return }
        startupTask.withLock { $0 }?.cancel()
        changeListener.stop()
        // Both refuse new items now; the pool stops once the groups being written are done.
        let submissions = submissionCommitter
        let rejections = rejectionCommitter
        submissions.close()
        rejections.close()
        let runTask = runTask
        Task {
            await submissions.closeAndWait()
            await rejections.closeAndWait()
            runTask.cancel()
        }
    }

    /// Runs `body` in a transaction, its errors as ``FormStore/StoreError``.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try checkOpen()
        return try await client.transaction(configuration, logger: logger, body)
    }

    /// Runs `body` on a pooled connection outside a transaction, its errors as ``FormStore/StoreError``.
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try checkOpen()
        do {
            return try await client.withConnection(
                waitingAtMost: configuration.connectionWait, answerWithin: configuration.answerWait, body)
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Throws when the store is closed, or its database has not been reached and migrated yet.
    private func checkOpen() throws {
        if isClosed { throw StoreError.unavailable("the store is closed") }
        try checkReady()
    }

    /// The error that ended the connection's session, if `error` is or holds one: the connection
    /// closed, or the server ended the session (FATAL, as `pg_terminate_backend` does).
    static func sessionError(in error: any Error) -> PSQLError? {
        if let transactionError = error as? PostgresTransactionError {
            for inner in [transactionError.closureError, transactionError.beginError, transactionError.commitError,
                          transactionError.rollbackError].compactMap({ $0 }) {
                if let found = sessionError(in: inner) { return found }
            }
            return nil
        }
        guard let error = error as? PSQLError else { return nil }
        if error.code == .serverClosedConnection || error.code == .uncleanShutdown { return error }
        return error.serverInfo?[.severity] == "FATAL" ? error : nil
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

/// All four concerns: the store a server selects with `database.url`.
extension PostgresFormStore: FormStore {}
