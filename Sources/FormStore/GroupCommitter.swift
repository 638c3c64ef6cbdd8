import Dispatch
import Logging
import Metrics
import Synchronization

/// Commits concurrent writes in groups: one transaction, and so one fsync, for many callers.
///
/// Callers queue their item and suspend. One drain, on a serial dispatch queue of its own, takes
/// whatever is queued (up to `maxGroupSize` items and `maxGroupBytes`), hands the batch to `write`,
/// which runs one transaction synchronously, and resumes every caller with its own result. While a
/// group is being committed the next callers queue up, so groups grow by themselves under load and no
/// artificial delay is needed. When `write` throws, the whole group failed: every caller of that
/// group gets ``StoreError/unavailable(_:)``.
///
/// The drain blocks its own thread on purpose: one thread takes the group, writes it and wakes the
/// callers, with no hop through the cooperative pool between those steps.
final class GroupCommitter<Item: Sendable, Outcome: Sendable>: Sendable {
    /// Writes a group in one transaction and returns one result per item, in order.
    typealias Write = @Sendable ([Item]) throws -> [Result<Outcome, StoreError>]

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
    private let write: Write
    private let logger: Logger
    private let commitTimer: Metrics.Timer
    private let groupSize: Recorder
    private let failedGroups: Counter
    private let drainQueue: DispatchQueue

    /// A group holds at most `maxGroupSize` items and, unless its first item alone is larger,
    /// `maxGroupBytes` as measured by `weight`. Metrics are named
    /// `formhouse_store_<metricPrefix>commit_seconds`, `…group_size` and `…failed_groups_total`.
    init(
        maxGroupSize: Int, maxGroupBytes: Int = .max, weight: @escaping @Sendable (Item) -> Int = { _ in 0 },
        metricPrefix: String = "", logger: Logger, write: @escaping Write
    ) {
        self.maxGroupSize = max(1, maxGroupSize)
        self.maxGroupBytes = maxGroupBytes
        self.weight = weight
        self.logger = logger
        self.write = write
        commitTimer = Metrics.Timer(label: "formhouse_store_\(metricPrefix)commit_seconds")
        groupSize = Recorder(label: "formhouse_store_\(metricPrefix)group_size")
        failedGroups = Counter(label: "formhouse_store_\(metricPrefix)failed_groups_total")
        drainQueue = DispatchQueue(label: "formhouse.store.\(metricPrefix)group-commit")
    }

    /// Queues `item` and returns its outcome once its group is committed. (Every waiter is resumed
    /// exactly once, by the drain or by `close`, so the unchecked continuation is safe and saves an
    /// allocation per call.) The item is moved into the queue, not copied: a copy retains each of its
    /// fields and the caller's original then releases them all.
    func submit(_ item: consuming Item) async throws -> Outcome {
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
                drainQueue.async { self.drain() }
            case .closed:
                continuation.resume(throwing: StoreError.unavailable("the store is closed"))
            }
        }
    }

    /// Refuses new items and fails those still queued; a group already being written finishes.
    func close() {
        let abandoned = state.withLock { state -> [Waiter] in
            state.closed = true
            defer { state.queue = Group() }
            return state.queue.waiters
        }
        for waiter in abandoned {
            waiter.resume(throwing: StoreError.unavailable("the store is closed"))
        }
    }

    var statistics: CommitStatistics {
        state.withLock { $0.statistics }
    }

    /// Items waiting for the next group.
    var queuedCount: Int {
        state.withLock { $0.queue.items.count }
    }

    /// Items handed to a group write since start.
    var takenCount: Int {
        state.withLock { $0.taken }
    }

    private func drain() {
        // The queue that replaces a group taken whole, allocated here rather than under the lock, with
        // room for twice the last group (at most a full group): the next one is often larger, and
        // regrowing the arrays under the lock copies every queued item (1.5 % of the event loops' time).
        var spare = Group(capacity: 64)
        while let group = nextGroup(replacingWith: &spare) {
            defer {
                if spare.items.capacity == 0 { spare = Group(capacity: min(maxGroupSize, max(64, 2 * group.items.count))) }
            }
            let started = DispatchTime.now().uptimeNanoseconds
            var results: [Result<Outcome, StoreError>]
            do {
                results = try write(group.items)
                precondition(results.count == group.items.count, "a group write must answer every item")
            } catch {
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
                continue
            }
            commitTimer.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started))
            groupSize.record(group.items.count)
            state.withLock { $0.statistics.record(groupSize: group.items.count, failed: false) }
            // Each result is moved out (reversed once, then popped), not copied, on its way to its waiter.
            results.reverse()
            for waiter in group.waiters {
                waiter.resume(with: results.removeLast())
            }
        }
    }

    /// The next group to write, or `nil` (and the drain ends) when nothing is queued.
    private func nextGroup(replacingWith spare: inout Group) -> Group? {
        state.withLock { state -> Group? in
            let queued = state.queue.items.count
            if queued == 0 {
                state.draining = false
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
