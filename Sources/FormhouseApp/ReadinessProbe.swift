import Foundation
import Synchronization

/// `/readyz`'s store check: one ping at a time, answered within a deadline. A ping is a blocking read
/// that a stalled disk holds for as long as it stalls; a ping per probe would stack up in the
/// database's threads under a load balancer probing each second. So probes wait on the ping in
/// flight, and give up waiting after `deadline`, which the ping itself cannot.
final class ReadinessProbe: Sendable {
    enum Outcome: Equatable { case ready, failed, noAnswer }

    private struct State {
        var pinging = false
        var waiters: [UInt64: CheckedContinuation<Outcome, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let ping: @Sendable () async throws -> Void
    /// How long a probe waits for the ping.
    let deadline: Duration
    private let state = Mutex(State())

    init(deadline: Duration = .seconds(2), ping: @escaping @Sendable () async throws -> Void) {
        self.deadline = deadline
        self.ping = ping
    }

    func check() async -> Outcome {
        await withCheckedContinuation { continuation in
            let (id, start) = state.withLock { state in
                let id = state.nextWaiter
                state.nextWaiter += 1
                state.waiters[id] = continuation
                defer { state.pinging = true }
                return (id, !state.pinging)
            }
            if start {
                Task {
                    let outcome: Outcome = (try? await ping()) != nil ? .ready : .failed
                    let waiters = state.withLock { state in
                        state.pinging = false
                        defer { state.waiters = [:] }
                        return state.waiters
                    }
                    for waiter in waiters.values { waiter.resume(returning: outcome) }
                }
            }
            // Ends at the deadline whatever happens; a waiter the ping answered is gone by then.
            Task { [deadline] in
                try? await Task.sleep(for: deadline)
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: .noAnswer)
            }
        }
    }
}
