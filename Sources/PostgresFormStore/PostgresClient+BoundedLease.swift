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
    func withConnection<T: Sendable>(
        waitingAtMost wait: Duration, answerWithin answer: Duration,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let race = LeaseRace<T>()
        return try await withCheckedThrowingContinuation { continuation in
            race.begin(continuation)
            let lease = Task {
                do {
                    _ = try await self.withConnection { connection in
                        guard race.leased() else { throw StoreError.unavailable("no database connection within \(wait)") }
                        // Answered as soon as the body is done, not once the pool has the connection back.
                        do {
                            race.finish(.success(try await body(connection)))
                        } catch {
                            race.finish(.failure(error))
                            // A session the server ended (FATAL) can go back to the pool looking alive,
                            // and the next statement on it hangs: closed here, the pool replaces it.
                            if let error = PostgresFormStore.sessionError(in: error) {
                                connection.logger.debug("closing a connection whose session ended", metadata: ["error": "\(error)"])
                                try? await connection.close()
                            }
                        }
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
