import Foundation
import Synchronization

/// `/readyz`'s store check: one ping at a time, answered within a deadline. A stalled disk held every
/// probe for as long as it stalled, and a load balancer probing each second stacked up pings blocked
/// in the database's threads; now probes share the ping in flight and give up waiting after
/// `deadline`, which the ping itself (a blocking read) cannot.
final class ReadinessProbe: Sendable {
    enum Outcome: Equatable { case ready, failed, noAnswer }

    private let ping: @Sendable () async throws -> Void
    private let deadline: Duration
    private let inFlight = Mutex<Task<Bool, Never>?>(nil)

    init(deadline: Duration = .seconds(2), ping: @escaping @Sendable () async throws -> Void) {
        self.deadline = deadline
        self.ping = ping
    }

    func check() async -> Outcome {
        let ping = self.ping
        let task = inFlight.withLock { current in
            if let current { return current }
            // Cleared by the ping's own task, which cannot get the lock before it is stored here.
            let task = Task<Bool, Never> {
                let ready = (try? await ping()) != nil
                self.inFlight.withLock { $0 = nil }
                return ready
            }
            current = task
            return task
        }
        let answer = await FirstAnswer.race(task, within: deadline)
        return answer.map { $0 ? .ready : .failed } ?? .noAnswer
    }
}

/// Resumes its waiter once, with the task's value or nil at the deadline, whichever comes first.
private final class FirstAnswer: Sendable {
    private let waiter: Mutex<CheckedContinuation<Bool?, Never>?>

    private init(_ waiter: CheckedContinuation<Bool?, Never>) { self.waiter = Mutex(waiter) }

    private func resume(_ value: Bool?) {
        waiter.withLock { waiter in
            waiter?.resume(returning: value)
            waiter = nil
        }
    }

    static func race(_ task: Task<Bool, Never>, within deadline: Duration) async -> Bool? {
        await withCheckedContinuation { continuation in
            let answer = FirstAnswer(continuation)
            let timer = Task {
                try? await Task.sleep(for: deadline)
                answer.resume(nil)
            }
            Task {
                let value = await task.value
                timer.cancel()
                answer.resume(value)
            }
        }
    }
}
