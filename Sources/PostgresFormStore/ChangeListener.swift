import FormStore
import PostgresNIO
import Synchronization

/// Tells this node what other nodes changed: forms saved or deleted, and deliveries queued.
///
/// It LISTENs on a connection of its own (not a pooled one, which would be handed to others) and
/// reconnects with a growing delay when that connection drops. Form changes are reported from the
/// change feed (`forms.changed`, numbered in commit order), read at once when a notification comes
/// and every ``PostgresStoreConfiguration/changePollInterval`` anyway: a notification lost while the
/// listener was down only delays a change, and a change is reported once however it was learnt.
/// Both start with the first handler set, so a store nobody asks for changes holds no extra connection.
final class ChangeListener: Sendable {
    /// The `application_name` of the listening connection.
    static let applicationName = "formhouse-listener"
    /// The channel of form changes; each notification's payload is the form's id.
    static let formsChannel = "formhouse_forms"

    private let connection: PostgresConnection.Configuration
    private let client: PostgresClient
    private let configuration: PostgresStoreConfiguration
    private let deliveryObserver: DeliveryObserver
    private let logger: Logger
    private let formHandler = Mutex<(@Sendable (String) -> Void)?>(nil)
    private let state: Mutex<State>
    /// Asks the feed reader to read now; wake-ups that come while it reads make one more read.
    private let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    private struct State {
        /// The highest `forms.changed` reported so far.
        var lastChange: Int64
        var tasks: [Task<Void, Never>] = []
        var started = false
        var stopped = false
    }

    init(
        connection: PostgresConnection.Configuration, client: PostgresClient, lastChange: Int64,
        configuration: PostgresStoreConfiguration, deliveryObserver: DeliveryObserver, logger: Logger
    ) {
        self.connection = connection
        self.client = client
        self.configuration = configuration
        self.deliveryObserver = deliveryObserver
        self.logger = logger
        state = Mutex(State(lastChange: lastChange))
        (wakeUps, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The latest number of the form change feed: changes after it are reported.
    static func lastChange(on connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        for try await last in try await connection.query("SELECT COALESCE(MAX(changed), 0) FROM forms", logger: logger)
            .decode(Int64.self) {
            return last
        }
        return 0
    }

    /// Calls `handler` with the id of each form changed from now on. Replaces any earlier handler.
    func onFormChanged(_ handler: @escaping @Sendable (String) -> Void) {
        formHandler.withLock { $0 = handler }
        start()
    }

    /// Reports no change numbered `change` or lower (those made before the store became ready).
    func skip(through change: Int64) {
        state.withLock { $0.lastChange = max($0.lastChange, change) }
    }

    /// Starts listening (and polling), once.
    func start() {
        state.withLock { state in
            guard !state.started, !state.stopped else { return }
            state.started = true
            state.tasks = [Task { await self.listen() }, Task { await self.tick() }, Task { await self.readFeed() }]
        }
    }

    /// Stops listening and polling for good.
    func stop() {
        let tasks = state.withLock { state in
            state.stopped = true
            return state.tasks
        }
        for task in tasks { task.cancel() }
        wake.finish()
    }

    private func listen() async {
        var delay = configuration.listenerRetryDelay
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: connection, id: 1, logger: logger)
                do {
                    try await connection.listen(on: Self.formsChannel) { forms in
                        try await connection.listen(on: SubmissionGroupWriter.deliveriesChannel) { deliveries in
                            delay = configuration.listenerRetryDelay
                            try await self.consume(forms: forms, deliveries: deliveries)
                        }
                    }
                    try? await connection.close()
                } catch {
                    try? await connection.close()
                    throw error
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("listening for other nodes' changes failed; retrying",
                               metadata: ["error": "\(String(reflecting: error))", "delay": "\(delay)"])
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, configuration.maxListenerRetryDelay)
        }
    }

    /// Reports each notification until either sequence ends (the connection dropped) or the task is
    /// cancelled.
    private func consume(forms: PostgresNotificationSequence, deliveries: PostgresNotificationSequence) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await _ in forms { self.wake.yield() }
            }
            group.addTask {
                for try await _ in deliveries { self.deliveryObserver.notify() }
            }
            _ = try await group.next()
            group.cancelAll()
        }
    }

    private func tick() async {
        while (try? await Task.sleep(for: configuration.changePollInterval)) != nil {
            wake.yield()
        }
    }

    private func readFeed() async {
        for await _ in wakeUps {
            do {
                try await reportChanges()
            } catch {
                logger.debug("reading the form change feed failed", metadata: ["error": "\(String(reflecting: error))"])
            }
        }
    }

    /// Reports the forms changed since the last change reported. Form writes take their number in
    /// commit order (see `PostgresFormStore.recordFormChange`), so none is passed over.
    private func reportChanges() async throws {
        guard let handler = formHandler.withLock({ $0 }) else { return }
        let last = state.withLock { $0.lastChange }
        let changes = try await client.withConnection(waitingAtMost: configuration.connectionWait, answerWithin: configuration.answerWait, atomic: true) { connection in
            var changes: [(String, Int64)] = []
            let rows = try await connection.query(
                "SELECT id, changed FROM forms WHERE changed > \(last) ORDER BY changed", logger: self.logger)
            for try await change in rows.decode((String, Int64).self) { changes.append(change) }
            return changes
        }
        for (formID, changed) in changes {
            handler(formID)
            state.withLock { $0.lastChange = max($0.lastChange, changed) }
        }
    }
}
