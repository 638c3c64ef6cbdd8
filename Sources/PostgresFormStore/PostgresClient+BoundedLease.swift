import FormStore
import PostgresNIO
import Synchronization

extension PostgresClient {
    /// Runs `body` on a pooled connection, or throws ``FormStore/StoreError/unavailable(_:)`` when
    /// none is leased within `wait`: while the server cannot be reached the pool keeps a lease
    /// waiting until its circuit breaker trips (a minute), and a request should get a quick 503
    /// instead.
    ///
    /// Once `body` runs it is not cancelled, but its caller stops waiting for it after `answer`: a
    /// connection whose server vanished mid-statement can leave it hanging, and a request must not
    /// hang with it (nor, for a group commit, every submission queued behind it). What the body was
    /// doing then may or may not have happened: ``FormStore/StoreError/outcomeUnknown(_:)``.
    ///
    /// The lease runs in a task of its own, which the caller does not wait for once answered.
    ///
    /// Both bounds are per connection: a lease takes another (three at most) when the one it got
    /// turns out closed before the body did anything that stays.
    ///
    /// `atomic` says that the body is one transaction, or reads only: when its connection closes
    /// under a statement the driver never sent (see ``PostgresNIO/PostgresConnection/whileOpen(grace:_:)``),
    /// nothing it did stays, and it runs again on another connection. Otherwise the caller is answered
    /// ``FormStore/StoreError/outcomeUnknown(_:)``: statements before it may have been committed.
    func withConnection<T: Sendable>(
        waitingAtMost wait: Duration, answerWithin answer: Duration, atomic: Bool = false,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        // Another connection is tried while the body has done nothing that stays: the pool can hand
        // out one whose session just ended, closed by the lease before it or by the server while
        // idle. Each is waited for, and answered, within the same bounds.
        for attempt in 1...Self.leaseAttempts {
            let outcome = try await leaseOnce(
                waitingAtMost: wait, answerWithin: answer, atomic: atomic, lastAttempt: attempt == Self.leaseAttempts, body)
            if case .answered(let value) = outcome { return value }
        }
        preconditionFailure("the last attempt is answered")
    }

    /// Runs `body` on one pooled connection within the bounds, or answers ``LeaseOutcome/stale`` when
    /// the connection turned out closed before `body` did anything that stays (never on the last attempt).
    private func leaseOnce<T: Sendable>(
        waitingAtMost wait: Duration, answerWithin answer: Duration, atomic: Bool, lastAttempt: Bool,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> LeaseOutcome<T> {
        let race = LeaseRace<LeaseOutcome<T>>()
        return try await withCheckedThrowingContinuation { continuation in
            race.begin(continuation)
            let lease = Task {
                do {
                    _ = try await self.withConnection { connection in
                        // A statement on it would never be answered.
                        if connection.isClosed {
                            await Self.closeForGood(connection)
                            race.finish(lastAttempt
                                ? .failure(StoreError.unavailable("PostgreSQL: every connection leased had closed"))
                                : .success(.stale))
                            return
                        }
                        guard race.leased() else { throw StoreError.unavailable("no database connection within \(wait)") }
                        guard let outcome = await connection.whileOpen(body) else {
                            let retry = atomic && !lastAttempt
                            if !retry {
                                race.finish(.failure(StoreError.outcomeUnknown(
                                    "PostgreSQL: the connection closed while a statement waited to be sent")))
                            }
                            await Self.closeForGood(connection)
                            if retry { race.finish(.success(.stale)) }
                            return
                        }
                        // Answered as soon as the body is done, not once the pool has the connection back.
                        let error: any Error
                        switch outcome {
                        case .success(let value):
                            race.finish(.success(.answered(value)))
                            return
                        case .failure(let failure):
                            error = failure
                        }
                        let retry = atomic && !lastAttempt && Self.connectionLostAtBegin(error)
                        if !retry { race.finish(.failure(error)) }
                        // A session the server ended (FATAL) could go back to the pool before the pool
                        // has seen it close, and be leased again: closed here, and handed back once it has.
                        let ended = PostgresFormStore.sessionError(in: error)
                        if retry || ended != nil {
                            // The driver's code and SQLSTATE only: a transaction's error holds its statements and their values.
                            let reason = ended.map { "\($0.code) \($0.serverInfo?[.sqlState] ?? "")" } ?? "closed"
                            connection.logger.debug("closing a connection whose session ended", metadata: ["error": "\(reason)"])
                            await Self.closeForGood(connection)
                        }
                        if retry { race.finish(.success(.stale)) }
                    }
                } catch {
                    race.finish(.failure(error))
                }
            }
            race.timer(Task {
                guard (try? await Task.sleep(for: wait)) != nil else { return }
                if race.expire(StoreError.unavailable("no database connection within \(wait)")) {
                    lease.cancel()
                    return
                }
                guard (try? await Task.sleep(for: answer)) != nil else { return }
                _ = race.expire(StoreError.outcomeUnknown("the database did not answer within \(wait + answer)"))
            })
        }
    }
}

extension PostgresClient {
    /// Runs `body` in a transaction on a pooled connection within `configuration`'s waits, as an
    /// `atomic` lease, its errors as ``FormStore/StoreError``. They are converted once the lease is
    /// over: the lease reads the driver's own to close a connection whose session ended.
    func transaction<T: Sendable>(
        _ configuration: PostgresStoreConfiguration, logger: Logger,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        do {
            return try await withConnection(
                waitingAtMost: configuration.connectionWait, answerWithin: configuration.answerWait, atomic: true
            ) { connection in
                try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
            }
        } catch {
            throw PostgresFormStore.storeError(error)
        }
    }
}

extension PostgresClient {
    /// How many connections a lease tries before it answers with the last one's failure.
    fileprivate static let leaseAttempts = 3

    /// Closes `connection` and returns once its close is reported, so that the pool has seen it close
    /// before it is handed back (`close` returns at once when the channel is already inactive) and
    /// does not lease it again.
    fileprivate static func closeForGood(_ connection: PostgresConnection) async {
        try? await connection.close()
        try? await connection.closeFuture.get()
    }

    /// True when `error` ended a transaction at its BEGIN because the connection was closed or its
    /// session had ended: nothing of the transaction reached the database, so it may run again on
    /// another connection.
    fileprivate static func connectionLostAtBegin(_ error: any Error) -> Bool {
        guard let error = error as? PostgresTransactionError, error.closureError == nil, error.commitError == nil,
              let beginError = error.beginError as? PSQLError else { return false }
        return beginError.code == .clientClosedConnection || PostgresFormStore.sessionError(in: beginError) != nil
    }
}

/// What one leased connection did.
private enum LeaseOutcome<T: Sendable>: Sendable {
    /// The body's value.
    case answered(T)
    /// The connection's session had ended before the body did anything that stays; another is leased.
    case stale
}

/// Answers the caller once: with the body's outcome, or when a wait is over first.
private final class LeaseRace<T: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<T, any Error>?)
        /// The body runs; the caller is resumed with its outcome, or when it takes too long.
        case leased(CheckedContinuation<T, any Error>?)
        /// The caller was answered.
        case done
    }

    private let state = Mutex(State.waiting(nil))
    /// The task that ends the waits; cancelled once the caller is answered, so that it does not sleep on.
    private let waitTask = Mutex<Task<Void, Never>?>(nil)

    func begin(_ continuation: CheckedContinuation<T, any Error>) {
        state.withLock { $0 = .waiting(continuation) }
    }

    /// Keeps the task that ends the waits, or cancels it at once when the caller was already answered.
    func timer(_ task: Task<Void, Never>) {
        let answered = state.withLock { state in
            if case .done = state { return true }
            waitTask.withLock { $0 = task }
            return false
        }
        if answered { task.cancel() }
    }

    /// True when the lease came first; the body may run.
    func leased() -> Bool {
        state.withLock { state in
            guard case .waiting(let continuation) = state else { return false }
            state = .leased(continuation)
            return true
        }
    }

    /// Answers the caller with the outcome, unless it was answered already.
    func finish(_ outcome: Result<T, any Error>) {
        guard let continuation = take(when: { _ in true }) else { return }
        continuation.resume(with: outcome)
        waitTask.withLock { $0 }?.cancel()
    }

    /// Answers the caller with `error` when no lease came yet (``StoreError/unavailable(_:)``) or the
    /// body still runs (``StoreError/outcomeUnknown(_:)``); true when it did.
    func expire(_ error: StoreError) -> Bool {
        let leasing: Bool
        if case .unavailable = error { leasing = true } else { leasing = false }
        guard let continuation = take(when: { leased in leased != leasing }) else { return false }
        continuation.resume(throwing: error)
        return true
    }

    /// The caller's continuation, once, when the state is waiting or leased and `condition` (given
    /// whether it is leased) holds.
    private func take(when condition: (Bool) -> Bool) -> CheckedContinuation<T, any Error>? {
        state.withLock { state in
            switch state {
            case .waiting(let continuation) where condition(false), .leased(let continuation) where condition(true):
                state = .done
                return continuation
            default:
                return nil
            }
        }
    }
}
