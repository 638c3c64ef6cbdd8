import Dispatch
import Logging
import Metrics
import Synchronization

/// Commits concurrent writes in groups: one transaction, and so one fsync, for many callers.
///
/// Callers queue their item and suspend. One drain takes whatever is queued (up to `maxGroupSize`
/// items and `maxGroupBytes`), hands the batch to `write`, which runs one transaction, and resumes
/// every caller with its own result. While a
/// group is being committed the next callers queue up, so groups grow by themselves under load and no
/// artificial delay is needed. When `write` throws, the whole group failed: every caller of that
/// group gets ``StoreError/unavailable(_:)``.
///
/// A synchronous `write` (SQLite) runs on a serial dispatch queue of its own and blocks its thread on
/// purpose: one thread takes the group, writes it and wakes the callers, with no hop through the
/// cooperative pool between those steps. An asynchronous one (a database across the network) runs in
/// a task instead, so no thread waits for the server.
package final class GroupCommitter<Item: Sendable, Outcome: Sendable>: Sendable {
    /// Writes a group in one transaction and returns one result per item, in order.
    package typealias Write = @Sendable ([Item]) throws -> [Result<Outcome, StoreError>]
    /// ``Write`` for a database that answers asynchronously.
    package typealias AsyncWrite = @Sendable ([Item]) async throws -> [Result<Outcome, StoreError>]

    /// How groups are written: the two kinds share the queue and differ only in the drain.
    private enum Writer: Sendable {
        case blocking(Write, DispatchQueue)
        case asynchronous(AsyncWrite)
    }

    fileprivate typealias Waiter = UnsafeContinuation<Outcome, any Error>

    /// Items and their waiters in two arrays, so a group's items go to `write` as they are, without a
    /// copy (each copy of a submission retains every one of its fields).
    fileprivate struct Group {
        var items: [Item] = []
        var waiters: [Waiter] = []
        /// Each item's `weight`, measured by its caller outside the lock.
        var weights: [Int] = []
    }

    private struct State: ~Copyable {
        var queue = Group()
        var draining = false
        var closed = false
        /// Callers of `closeAndWait`, resumed when the drain ends.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        /// Items handed to a group write so far.
        var taken = 0
        var statistics = CommitStatistics()
    }

    private enum Admission {
        case queued, startDrain, closed
    }

    private let state = Mutex(State())
    private let maxGroupSize: Int
    private let maxGroupBytes: Int
    private let weight: @Sendable (Item) -> Int
    private let writer: Writer
    private let logger: Logger
    private let commitTimer: Metrics.Timer
    private let groupSize: Recorder
    private let failedGroups: Counter

    /// A group holds at most `maxGroupSize` items and, unless its first item alone is larger,
    /// `maxGroupBytes` as measured by `weight`. Metrics are named
    /// `formhouse_store_<metricPrefix>commit_seconds`, `…group_size` and `…failed_groups_total`.
    package convenience init(
        maxGroupSize: Int, maxGroupBytes: Int = .max, weight: @escaping @Sendable (Item) -> Int = { _ in 0 },
        metricPrefix: String = "", logger: Logger, write: @escaping Write
    ) {
        self.init(
            maxGroupSize: maxGroupSize, maxGroupBytes: maxGroupBytes, weight: weight, metricPrefix: metricPrefix,
            logger: logger, writer: .blocking(write, DispatchQueue(label: "formhouse.store.\(metricPrefix)group-commit")))
    }

    /// Groups written by an asynchronous `write`, in a task; otherwise as the blocking kind.
    package convenience init(
        maxGroupSize: Int, maxGroupBytes: Int = .max, weight: @escaping @Sendable (Item) -> Int = { _ in 0 },
        metricPrefix: String = "", logger: Logger, asyncWrite: @escaping AsyncWrite
    ) {
        self.init(
            maxGroupSize: maxGroupSize, maxGroupBytes: maxGroupBytes, weight: weight, metricPrefix: metricPrefix,
            logger: logger, writer: .asynchronous(asyncWrite))
    }

    private init(
        maxGroupSize: Int, maxGroupBytes: Int, weight: @escaping @Sendable (Item) -> Int, metricPrefix: String,
        logger: Logger, writer: Writer
    ) {
        self.maxGroupSize = max(1, maxGroupSize)
        self.maxGroupBytes = maxGroupBytes
        self.weight = weight
        self.logger = logger
        self.writer = writer
        commitTimer = Metrics.Timer(label: "formhouse_store_\(metricPrefix)commit_seconds")
        groupSize = Recorder(label: "formhouse_store_\(metricPrefix)group_size")
        failedGroups = Counter(label: "formhouse_store_\(metricPrefix)failed_groups_total")
    }

    /// Queues `item` and returns its outcome once its group is committed. (Every waiter is resumed
    /// exactly once, by the drain or by `close`, so the unchecked continuation is safe and saves an
    /// allocation per call.) The item is moved into the queue, not copied: a copy retains each of its
    /// fields and the caller's original then releases them all.
    package func submit(_ item: consuming Item) async throws -> Outcome {
        let itemWeight = weight(item)
        var slot = Optional(item)
        return try await withUnsafeThrowingContinuation { continuation in
            let admission = state.withLock { state -> Admission in
                if state.closed { return .closed }
                state.queue.items.append(slot.take()!)
                state.queue.waiters.append(continuation)
                state.queue.weights.append(itemWeight)
                if state.draining { return .queued }
                state.draining = true
                return .startDrain
            }
            switch admission {
            case .queued:
                break
            case .startDrain:
                switch writer {
                case .blocking(let write, let queue): queue.async { self.drain(write) }
                case .asynchronous(let write): Task { await self.drain(write) }
                }
            case .closed:
                continuation.resume(throwing: StoreError.unavailable("the store is closed"))
            }
        }
    }

    /// Refuses new items and fails those still queued; a group already being written finishes.
    package func close() {
        let abandoned = state.withLock { state -> [Waiter] in
            state.closed = true
            defer { state.queue = Group() }
            return state.queue.waiters
        }
        for waiter in abandoned {
            waiter.resume(throwing: StoreError.unavailable("the store is closed"))
        }
    }

    /// ``close()``, then waits until a group being written has finished.
    package func closeAndWait() async {
        close()
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state -> Bool in
                if !state.draining { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    package var statistics: CommitStatistics {
        state.withLock { $0.statistics }
    }

    /// Items waiting for the next group.
    package var queuedCount: Int {
        state.withLock { $0.queue.items.count }
    }

    /// Items handed to a group write since start.
    package var takenCount: Int {
        state.withLock { $0.taken }
    }

    private func drain(_ write: Write) {
        // The queue that replaces a group taken whole, allocated here rather than under the lock, with
        // room for twice the last group (at most a full group): the next one is often larger, and
        // regrowing the arrays under the lock copies every queued item (1.5 % of the event loops' time).
        var spare = Group(capacity: 64)
        while let group = nextGroup(replacingWith: &spare) {
            let started = DispatchTime.now().uptimeNanoseconds
            finish(group, started: started, Result { try write(group.items) })
            reserve(&spare, after: group)
        }
    }

    private func drain(_ write: AsyncWrite) async {
        var spare = Group(capacity: 64)
        while let group = nextGroup(replacingWith: &spare) {
            let started = DispatchTime.now().uptimeNanoseconds
            let results: Result<[Result<Outcome, StoreError>], any Error>
            do { results = .success(try await write(group.items)) } catch { results = .failure(error) }
            finish(group, started: started, results)
            reserve(&spare, after: group)
        }
    }

    /// Gives the spare queue room for twice the last group (at most a full group) when it was used.
    private func reserve(_ spare: inout Group, after group: Group) {
        if spare.items.capacity == 0 { spare = Group(capacity: min(maxGroupSize, max(64, 2 * group.items.count))) }
    }

    /// Records the group's write and resumes each of its waiters with its result, or all of them with
    /// the failure. The results are consumed, so they are reversed in place, without a copy.
    private func finish(_ group: Group, started: UInt64, _ written: consuming Result<[Result<Outcome, StoreError>], any Error>) {
        switch consume written {
        case .success(var results):
            precondition(results.count == group.items.count, "a group write must answer every item")
            commitTimer.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started))
            groupSize.record(group.items.count)
            state.withLock { $0.statistics.record(groupSize: group.items.count, failed: false) }
            // Each result is moved out (reversed once, then popped), not copied, on its way to its waiter.
            results.reverse()
            for waiter in group.waiters {
                waiter.resume(with: results.removeLast())
            }
        case .failure(let error):
            let failure = (error as? StoreError).flatMap { error -> StoreError? in
                switch error {
                case .unavailable, .outcomeUnknown: error
                default: nil
                }
            } ?? StoreError.unavailable("group commit failed: \(error)")
            logger.error("group commit failed", metadata: ["size": "\(group.items.count)", "error": "\(error)"])
            failedGroups.increment()
            state.withLock { $0.statistics.record(groupSize: group.items.count, failed: true) }
            for waiter in group.waiters {
                waiter.resume(throwing: failure)
            }
        }
    }

    /// The next group to write, or `nil` (and the drain ends) when nothing is queued.
    private func nextGroup(replacingWith spare: inout Group) -> Group? {
        state.withLock { state -> Group? in
            let queued = state.queue.items.count
            if queued == 0 {
                state.draining = false
                for waiter in state.idleWaiters { waiter.resume() }
                state.idleWaiters = []
                return nil
            }
            var count = 0
            var bytes = 0
            while count < queued, count < maxGroupSize {
                let itemBytes = state.queue.weights[count]
                if count > 0, bytes + itemBytes > maxGroupBytes { break }
                count += 1
                bytes += itemBytes
            }
            state.taken += count
            if count == queued {
                let group = state.queue
                // The spare has room for twice the last group (at most a full group), so the next
                // callers queue without regrowing the arrays.
                swap(&state.queue, &spare)
                spare = Group()
                return group
            }
            let group = Group(
                items: Array(state.queue.items.prefix(count)), waiters: Array(state.queue.waiters.prefix(count)),
                weights: Array(state.queue.weights.prefix(count)))
            state.queue.items.removeFirst(count)
            state.queue.waiters.removeFirst(count)
            state.queue.weights.removeFirst(count)
            return group
        }
    }
}

extension GroupCommitter.Group {
    /// Empty, with room for `capacity` items (in an extension, so the memberwise initializer stays).
    init(capacity: Int) {
        self.init()
        items.reserveCapacity(capacity)
        waiters.reserveCapacity(capacity)
        weights.reserveCapacity(capacity)
    }
}
