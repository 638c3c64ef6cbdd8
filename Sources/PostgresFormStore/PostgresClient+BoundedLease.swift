import FormStore
import PostgresNIO
import Synchronization

extension PostgresClient {
    /// Runs `body` on a pooled connection, or throws ``FormStore/StoreError/unavailable(_:)`` when
    /// none is leased within `wait`: while the server cannot be reached the pool keeps a lease
    /// waiting until its circuit breaker trips (a minute), and a request should get a quick 503
    /// instead. Only the wait is bounded; once `body` runs it is never cancelled by the bound.
    func withConnection<T: Sendable>(
        waitingAtMost wait: Duration, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let lease = LeaseRace()
        return try await withThrowingTaskGroup(of: LeaseRace.Arrival<T>.self) { group in
            group.addTask {
                .value(try await self.withConnection { connection in
                    guard lease.leased() else { throw StoreError.unavailable("no database connection") }
                    return try await body(connection)
                })
            }
            group.addTask {
                try? await Task.sleep(for: wait)
                return .waitOver
            }
            while let arrival = try await group.next() {
                switch arrival {
                case .value(let value):
                    group.cancelAll()
                    return value
                case .waitOver where lease.expired():
                    group.cancelAll()
                    throw StoreError.unavailable("no database connection within \(wait)")
                case .waitOver:
                    continue
                }
            }
            throw StoreError.unavailable("no database connection")
        }
    }
}

/// Decides once whether a lease came before its wait was over.
private final class LeaseRace: Sendable {
    enum Arrival<T: Sendable>: Sendable {
        case value(T)
        case waitOver
    }

    private enum State {
        case waiting, leased, expired
    }

    private let state = Mutex(State.waiting)

    /// True when the lease came first; the body may run.
    func leased() -> Bool {
        state.withLock { state in
            guard state == .waiting else { return false }
            state = .leased
            return true
        }
    }

    /// True when the wait ended first; the lease request may be cancelled.
    func expired() -> Bool {
        state.withLock { state in
            guard state == .waiting else { return false }
            state = .expired
            return true
        }
    }
}
