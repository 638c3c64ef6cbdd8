import Synchronization

/// Lets at most a fixed number of transfers run at once; the others wait their turn in order.
final class TransferGate: Sendable {
    private struct State {
        var available: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(slots: Int) {
        state = Mutex(State(available: slots))
    }

    func acquire() async {
        await withCheckedContinuation { continuation in
            let admitted = state.withLock { state in
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    /// Hands the slot to the longest waiter, or frees it.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.available += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
