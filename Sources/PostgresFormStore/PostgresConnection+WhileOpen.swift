import PostgresNIO
import Synchronization

extension PostgresConnection {
    /// Runs `body` on this connection and returns its outcome, or nil once the connection has been
    /// closed for `grace` while `body` still runs.
    ///
    /// The driver writes a statement to its channel without a promise: one written as the channel
    /// closes reaches no handler, is never sent, and is never answered either. Its caller would wait
    /// for ever, and so would the pool slot it holds. A statement the channel did take is answered or
    /// failed by the time the channel has closed, so `grace` only lets the body's task run on to its
    /// end; it is long, since a body given up too early may be run again after it committed.
    ///
    /// `body` runs in a task of its own, which is left waiting when it is given up.
    func whileOpen<T: Sendable>(
        grace: Duration = .seconds(2), _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async -> Result<T, any Error>? {
        let first = FirstOutcome<T>()
        return await withCheckedContinuation { continuation in
            first.begin(continuation)
            Task {
                do {
                    first.offer(.success(try await body(self)))
                } catch {
                    first.offer(.failure(error))
                }
            }
            first.watch(Task {
                var closedSince: ContinuousClock.Instant?
                while (try? await Task.sleep(for: .milliseconds(250))) != nil {
                    guard self.isClosed else { continue }
                    let since = closedSince ?? .now
                    closedSince = since
                    if ContinuousClock.now - since >= grace {
                        first.offer(nil)
                        return
                    }
                }
            })
        }
    }
}

/// The first of the body's outcome and its being given up; the watch stops with it.
private final class FirstOutcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<T, any Error>?, Never>?
        var watcher: Task<Void, Never>?
        var answered = false
    }

    private let state = Mutex(State())

    func begin(_ continuation: CheckedContinuation<Result<T, any Error>?, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Keeps the watching task, or cancels it when the outcome came already.
    func watch(_ task: Task<Void, Never>) {
        let answered = state.withLock { state in
            if !state.answered { state.watcher = task }
            return state.answered
        }
        if answered { task.cancel() }
    }

    /// Resumes the caller with `outcome` unless it was resumed already.
    func offer(_ outcome: Result<T, any Error>?) {
        let (continuation, watcher) = state.withLock { state -> (CheckedContinuation<Result<T, any Error>?, Never>?, Task<Void, Never>?) in
            guard !state.answered else { return (nil, nil) }
            state.answered = true
            defer { state.continuation = nil; state.watcher = nil }
            return (state.continuation, state.watcher)
        }
        watcher?.cancel()
        continuation?.resume(returning: outcome)
    }
}
