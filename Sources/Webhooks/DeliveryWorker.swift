import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Synchronization

/// Drains the outbox: claims due deliveries, signs and sends them, records every attempt.
///
/// Runs as a swift-service-lifecycle `Service`. It wakes every `pollInterval` and whenever
/// `notify()` is called (after a commit), keeps up to `maxInFlight` deliveries in flight on one
/// `CurlClient`, and on graceful shutdown stops claiming, gives in-flight deliveries `shutdownGrace`
/// to finish, cancels the rest, and releases its leases so that nothing waits for them to expire.
///
/// Slow receivers cannot starve fast ones (see `DeliveryLanes`): an endpoint not heard from yet is not
/// claimed again until it answers, and endpoints slower than `slowThreshold` share at most
/// `slowShare` of the in-flight slots evenly, and no endpoint has more than `maxInFlightPerEndpoint`
/// deliveries in flight; claims skip endpoints that may not get more.
public final class DeliveryWorker: Service, Sendable {
    /// How the worker paces itself.
    public struct Configuration: Sendable {
        /// Lease owner name; unique per process.
        public var owner: String
        /// Deliveries in flight at most.
        public var maxInFlight: Int
        /// Deliveries claimed per query at most.
        public var claimBatch: Int
        /// How long a claim is held; longer than the client's timeout, so a live worker keeps its rows.
        public var lease: TimeInterval
        /// How often the queue is polled when nobody calls `notify()`.
        public var pollInterval: Duration
        /// How long in-flight deliveries may take to finish on shutdown.
        public var shutdownGrace: Duration
        /// How often the queue-depth gauges are refreshed.
        public var statsInterval: Duration
        /// How many bytes of a response body each attempt keeps.
        public var excerptLimit: Int
        /// An attempt this long or longer (or a timeout) marks its endpoint slow until it answers faster.
        public var slowThreshold: Duration
        /// The share of `maxInFlight` that slow endpoints may hold together.
        public var slowShare: Double
        /// Deliveries in flight to one endpoint at most.
        public var maxInFlightPerEndpoint: Int

        /// The defaults: 1,024 in flight (at most half for slow endpoints, 64 per endpoint), 60 s
        /// leases, polling every 200 ms, 10 s shutdown grace.
        public init(
            owner: String = "worker-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))",
            maxInFlight: Int = 1024,
            claimBatch: Int = 64,
            lease: TimeInterval = 60,
            pollInterval: Duration = .milliseconds(200),
            shutdownGrace: Duration = .seconds(10),
            statsInterval: Duration = .seconds(5),
            excerptLimit: Int = 4096,
            slowThreshold: Duration = .seconds(1),
            slowShare: Double = 0.5,
            maxInFlightPerEndpoint: Int = 64
        ) {
            self.owner = owner
            self.maxInFlight = maxInFlight
            self.claimBatch = claimBatch
            self.lease = lease
            self.pollInterval = pollInterval
            self.shutdownGrace = shutdownGrace
            self.statsInterval = statsInterval
            self.excerptLimit = excerptLimit
            self.slowThreshold = slowThreshold
            self.slowShare = slowShare
            self.maxInFlightPerEndpoint = maxInFlightPerEndpoint
        }
    }

    private struct State {
        var wake: AsyncStream<Void>.Continuation?
        var stopping = false
        /// The last claim filled its limit: more rows are probably due, so a freed slot is worth a claim.
        var backlog = false
        /// The last claim failed: a store that stays unusable is logged once, not on every poll.
        var claimFailing = false
        var lanes: DeliveryLanes
        /// Deliveries being sent. A lease that ran out mid-send (a stalled store) lets this worker claim
        /// the row again; it is not sent twice at once, and the running attempt's result stands.
        var sending: Set<String> = []
    }

    private let queue: any DeliveryQueue
    private let client: CurlClient
    private let schedule: RetrySchedule
    private let configuration: Configuration
    private let logger: Logger
    private let stats: (@Sendable () async throws -> QueueStats)?
    private let state: Mutex<State>

    private let outcomes: [String: Counter]
    private let attemptDuration = Metrics.Timer(label: "formhouse_webhook_attempt_duration_seconds")
    private let queueDepth = Gauge(label: "formhouse_webhook_queue_depth")
    private let oldestPendingAge = Gauge(label: "formhouse_webhook_oldest_pending_age_seconds")
    private let inFlightGauge = Gauge(label: "formhouse_webhook_in_flight")

    /// Creates a worker over a queue and a client; `stats` feeds the queue-depth gauges.
    public init(
        queue: any DeliveryQueue,
        client: CurlClient,
        schedule: RetrySchedule = .standard,
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "formhouse.webhooks"),
        stats: (@Sendable () async throws -> QueueStats)? = nil
    ) {
        self.queue = queue
        self.client = client
        self.schedule = schedule
        self.configuration = configuration
        self.logger = logger
        self.stats = stats
        let slowLimit = Int(Double(configuration.maxInFlight) * configuration.slowShare)
        let lanes = DeliveryLanes(threshold: configuration.slowThreshold, slowLimit: slowLimit,
                                  endpointLimit: configuration.maxInFlightPerEndpoint)
        self.state = Mutex(State(lanes: lanes))
        var outcomes: [String: Counter] = [:]
        for outcome in [DeliveryOutcome.succeeded, .retry(at: Date()), .dead, .endpointDisabled] {
            outcomes[outcome.name] = Counter(label: "formhouse_webhook_deliveries_total", dimensions: [("outcome", outcome.name)])
        }
        self.outcomes = outcomes
    }

    /// Wakes the worker now: call it after committing new deliveries so they go out at once.
    public func notify() {
        state.withLock { $0.wake }?.yield()
    }

    /// Claims and delivers until graceful shutdown or cancellation, then releases its leases.
    public func run() async throws {
        let (signals, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        state.withLock { $0.wake = wake }
        defer {
            wake.finish()
            state.withLock { $0.wake = nil }
        }
        var iterator = signals.makeAsyncIterator()

        await withDiscardingTaskGroup { group in
            group.addTask { [configuration] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: configuration.pollInterval)
                    self.state.withLock { $0.lanes.sweep() }
                    wake.yield()
                }
            }
            if let stats {
                group.addTask { [configuration] in
                    while !Task.isCancelled {
                        await self.refreshGauges(stats)
                        try? await Task.sleep(for: configuration.statsInterval)
                    }
                }
            }

            await withGracefulShutdownHandler {
                while !state.withLock({ $0.stopping }) && !Task.isCancelled {
                    let claimed = await claim()
                    for (job, token) in claimed {
                        group.addTask { await self.deliver(job, token: token) }
                    }
                    if !state.withLock({ $0.backlog }) || claimed.isEmpty {
                        _ = await iterator.next()
                    }
                }
            } onGracefulShutdown: {
                self.state.withLock { $0.stopping = true }
                wake.yield()
            }

            // Stop claiming; let what is in flight finish until the deadline, then cancel it.
            let deadline = ContinuousClock.now + (Task.isCancelled ? .zero : configuration.shutdownGrace)
            while state.withLock({ $0.lanes.inFlight }) > 0 && ContinuousClock.now < deadline && !Task.isCancelled {
                _ = await iterator.next()
            }
            group.cancelAll()
        }

        // Detached, so that a cancelled run still releases: a store may refuse work in a cancelled task.
        let (queue, owner) = (queue, configuration.owner)
        do {
            try await Task.detached { try await queue.releaseLeases(owner: owner) }.value
        } catch {
            logger.error("Could not release delivery leases; they expire on their own", metadata: ["error": "\(error)"])
        }
        logger.info("Webhook delivery worker stopped", metadata: ["owner": "\(configuration.owner)"])
    }

    /// Leases as many due deliveries as there are free slots, skipping endpoints that may not get more.
    ///
    /// The free slots are claimed skipping probed, saturated and slow endpoints; then what is left of
    /// the slow lane is claimed skipping only slow endpoints that hold their share of it.
    private func claim() async -> [(DeliveryJob, token: UInt64)] {
        let (free, busy, slow, slowAtShare, slowRoom, endpointRoom) = state.withLock { state in
            (configuration.maxInFlight - state.lanes.inFlight, state.lanes.probing.union(state.lanes.saturated),
             state.lanes.slow, state.lanes.slowAtShare, state.lanes.slowRoom, state.lanes.roomByEndpoint)
        }
        guard free > 0 else { return [] }
        // No claim can give one endpoint more than its limit, whatever the batch.
        let limit = min(free, configuration.claimBatch, configuration.maxInFlightPerEndpoint)
        var jobs: [DeliveryJob] = []
        var full = false
        var failure: (any Error)?
        do {
            // Each endpoint's room under `maxInFlightPerEndpoint` caps what one claim gives it: the
            // saturated set alone, cleared at half the limit, would let an endpoint just past half get
            // a whole batch more.
            jobs = try await queue.claimDue(owner: configuration.owner, limit: limit, now: Date(), lease: configuration.lease,
                                            excludingEndpoints: busy.union(slow), roomByEndpoint: endpointRoom)
            full = jobs.count == limit
            let room = min(limit - jobs.count, slowRoom)
            if room > 0 && slowAtShare.count < slow.count {
                // What the first claim gave each endpoint counts against its room in the second.
                var left = endpointRoom
                for job in jobs { left[job.endpointID] = left[job.endpointID, default: configuration.maxInFlightPerEndpoint] - 1 }
                let more = try await queue.claimDue(owner: configuration.owner, limit: room, now: Date(), lease: configuration.lease,
                                                    excludingEndpoints: busy.union(slowAtShare), roomByEndpoint: left)
                jobs += more
                full = full || more.count == room
            }
        } catch {
            // Jobs of a first claim that succeeded are still delivered.
            failure = error
            full = false
        }
        let (claimed, inFlight, wasFailing) = state.withLock { [jobs, full, failure] state in
            state.backlog = full
            let wasFailing = state.claimFailing
            state.claimFailing = failure != nil
            let claimed = jobs.filter { state.sending.insert($0.id).inserted }.map { job in (job, token: state.lanes.start(job.endpointID)) }
            return (claimed, state.lanes.inFlight, wasFailing)
        }
        if let failure {
            logger.log(level: wasFailing ? .debug : .error, "Could not claim due deliveries", metadata: ["error": "\(failure)"])
        } else if wasFailing {
            logger.notice("Claiming due deliveries works again")
        }
        inFlightGauge.record(inFlight)
        return claimed
    }

    /// Sends one delivery and records the attempt; a transfer cancelled by shutdown is not an attempt.
    private func deliver(_ job: DeliveryJob, token: UInt64) async {
        var speed: DeliveryLanes.Speed?
        defer {
            let (inFlight, wake) = state.withLock { state in
                state.sending.remove(job.id)
                let unblocks = state.lanes.finish(token, speed: speed)
                return (state.lanes.inFlight, state.backlog || state.stopping || unblocks ? state.wake : nil)
            }
            inFlightGauge.record(inFlight)
            wake?.yield()
        }
        let startedAt = Date()
        let timestamp = Int64(startedAt.timeIntervalSince1970)
        if let problem = job.signingProblem {
            logger.error("Webhook delivery cannot be signed", metadata: ["delivery": "\(job.id)", "endpoint": "\(job.endpointID)"])
            await record(job, result: TransferResult(status: nil, error: TransferError(.signing, problem)), startedAt: startedAt)
            return
        }
        let request = OutgoingRequest(
            url: job.url,
            headers: [
                ("content-type", "application/json"),
                ("webhook-id", job.id),
                ("webhook-timestamp", String(timestamp)),
                ("webhook-signature", WebhookSigner.sign(id: job.id, timestamp: timestamp, body: job.payload, secrets: job.secrets)),
            ],
            body: job.payload
        )
        let result = await client.send(request)
        if result.error?.code == .cancelled { return }
        if result.error?.code == .timeout || result.duration >= configuration.slowThreshold {
            speed = .slow
        } else if result.status != nil {
            speed = .fast
        }
        await record(job, result: result, startedAt: startedAt)
    }

    /// Why an endpoint that answered 410 is disabled, as the admin sees it.
    private static let goneReason = "The endpoint answered 410 Gone."

    /// Records an attempt's outcome under the retry schedule.
    private func record(_ job: DeliveryJob, result: TransferResult, startedAt: Date) async {
        let outcome = schedule.decide(attempt: job.attempt, result: result, now: Date())
        let attempt = DeliveryAttempt(
            number: job.attempt,
            startedAt: startedAt,
            status: result.status,
            duration: result.duration,
            error: result.error,
            responseExcerpt: String(decoding: result.body.prefix(configuration.excerptLimit), as: UTF8.self)
        )
        attemptDuration.record(duration: result.duration)
        do {
            // The attempt first: disabling ends the endpoint's open deliveries, this one included,
            // and its status (the 410) would then not be kept as its last.
            try await queue.record(job, attempt: attempt, outcome: outcome)
            if outcome == .endpointDisabled {
                try await queue.disableEndpoint(id: job.endpointID, reason: Self.goneReason)
            }
            outcomes[outcome.name]?.increment()
        } catch {
            // The lease runs out and the delivery is claimed again: at least once, never lost.
            logger.error("Could not record a delivery attempt", metadata: ["delivery": "\(job.id)", "error": "\(error)"])
            // The 410 still stands, recorded or not.
            if outcome == .endpointDisabled {
                try? await queue.disableEndpoint(id: job.endpointID, reason: Self.goneReason)
            }
        }
        if outcome != .succeeded {
            logger.debug("Webhook delivery attempt failed", metadata: [
                "delivery": "\(job.id)", "attempt": "\(job.attempt)", "outcome": "\(outcome.name)",
                "status": "\(result.status.map(String.init) ?? "-")", "error": "\(result.error?.description ?? "-")",
            ])
        }
    }

    private func refreshGauges(_ stats: @Sendable () async throws -> QueueStats) async {
        do {
            let current = try await stats()
            queueDepth.record(current.pending)
            oldestPendingAge.record(current.oldestPendingAge ?? 0)
        } catch {
            logger.warning("Could not read webhook queue stats", metadata: ["error": "\(error)"])
        }
    }
}
