import Foundation
import Synchronization
import Testing
@testable import FormhouseApp

/// `/readyz` answers within its deadline while the store's check is stuck (a frozen disk), and probes
/// made meanwhile share the one check in flight instead of each starting another.
@Suite struct ReadinessProbeTests {
    final class StuckPing: Sendable {
        let started = Atomic<Int>(0)
        let release = Mutex<[CheckedContinuation<Void, Never>]>([])
        let failing = Atomic<Bool>(false)

        func ping() async throws {
            started.add(1, ordering: .relaxed)
            await withCheckedContinuation { continuation in release.withLock { $0.append(continuation) } }
            if failing.load(ordering: .relaxed) { throw CancellationError() }
        }

        func unstick() {
            for waiter in release.withLock({ waiters in defer { waiters = [] }; return waiters }) { waiter.resume() }
        }
    }

    /// Waits (bounded) until `count` pings have started: a task may take a while to run on a loaded machine.
    func started(_ stuck: StuckPing, reach count: Int) async throws {
        for _ in 0..<500 where stuck.started.load(ordering: .relaxed) < count { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test func aStuckCheckIsNotReadyWithinTheDeadlineAndIsShared() async throws {
        let stuck = StuckPing()
        let probe = ReadinessProbe(deadline: .milliseconds(200)) { try await stuck.ping() }
        async let first = probe.check()
        async let second = probe.check()
        let answers = await [first, second]
        #expect(answers == [.noAnswer, .noAnswer])
        #expect(await probe.check() == .noAnswer)
        try await started(stuck, reach: 1)
        #expect(stuck.started.load(ordering: .relaxed) == 1)

        // Once the disk answers, probes are ready; the next one runs a check of its own.
        stuck.unstick()
        var outcome = ReadinessProbe.Outcome.noAnswer
        for _ in 0..<100 where outcome != .ready {
            outcome = await probe.check()
            stuck.unstick()
        }
        #expect(outcome == .ready)
        let before = stuck.started.load(ordering: .relaxed)
        #expect(await probe.check() == .noAnswer)
        try await started(stuck, reach: before + 1)
        #expect(stuck.started.load(ordering: .relaxed) == before + 1)
        stuck.unstick()
    }

    /// A probe answered by the ping does not wait for its deadline.
    @Test func aPingThatAnswersEndsTheWait() async throws {
        let stuck = StuckPing()
        let probe = ReadinessProbe(deadline: .seconds(600)) { try await stuck.ping() }
        async let waiting = probe.check()
        try await started(stuck, reach: 1)
        stuck.unstick()
        #expect(await waiting == .ready)
    }

    @Test func aFailedCheckIsNotReady() async throws {
        let probe = ReadinessProbe(deadline: .seconds(30)) { throw CancellationError() }
        #expect(await probe.check() == .failed)
        let fine = ReadinessProbe(deadline: .seconds(30)) {}
        #expect(await fine.check() == .ready)
    }
}
