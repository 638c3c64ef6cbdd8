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
/// Endpoints whose last attempt took `slowThreshold` or more (or timed out) share at most
/// `slowShare` of the in-flight slots; once that is used up, claims skip them, so a crowd of slow
/// receivers cannot starve the fast ones.
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

        /// The defaults: 1,024 in flight (a quarter for slow endpoints), 60 s leases, polling every
        /// 200 ms, 10 s shutdown grace.
        public init(
            owner: String = "worker-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))",
            maxInFlight: Int = 1024,
            claimBatch: Int = 128,
            lease: TimeInterval = 60,
            pollInterval: Duration = .milliseconds(200),
            shutdownGrace: Duration = .seconds(10),
            statsInterval: Duration = .seconds(5),
            excerptLimit: Int = 4096,
            slowThreshold: Duration = .seconds(1),
            slowShare: Double = 0.25
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
        }
    }

    private struct State {
        var wake: AsyncStream<Void>.Continuation?
        var stopping = false
        /// The last claim filled its limit: more rows are probably due, so a freed slot is worth a claim.
        var backlog = false
        var inFlight = 0
        var slowInFlight = 0
        /// Endpoints whose last attempt was slow, with when that was seen.
        var slowEndpoints: [String: ContinuousClock.Instant] = [:]
    }

    private let queue: any DeliveryQueue
    private let client: CurlClient
    private let schedule: RetrySchedule
    private let configuration: Configuration
    private let logger: Logger
    private let stats: (@Sendable () async throws -> QueueStats)?
    private let state = Mutex(State())

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
                    for (job, slowLane) in claimed {
                        group.addTask { await self.deliver(job, slowLane: slowLane) }
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
            while state.withLock({ $0.inFlight }) > 0 && ContinuousClock.now < deadline && !Task.isCancelled {
                _ = await iterator.next()
            }
            group.cancelAll()
        }

        do {
            try await queue.releaseLeases(owner: configuration.owner)
        } catch {
            logger.error("Could not release delivery leases; they expire on their own", metadata: ["error": "\(error)"])
        }
        logger.info("Webhook delivery worker stopped", metadata: ["owner": "\(configuration.owner)"])
    }

    /// Leases as many due deliveries as there are free slots, each tagged with its lane.
    ///
    /// While some endpoints are known to be slow, the free slots are claimed skipping them, and
    /// then only what is left of the slow lane is claimed without that restriction.
    private func claim() async -> [(DeliveryJob, slowLane: Bool)] {
        let slowLimit = max(1, Int(Double(configuration.maxInFlight) * configuration.slowShare))
        let (free, slowEndpoints) = state.withLock { state in
            (configuration.maxInFlight - state.inFlight, Set(state.slowEndpoints.keys))
        }
        guard free > 0 else { return [] }
        let limit = min(free, configuration.claimBatch)
        var jobs: [DeliveryJob] = []
        var full = false
        do {
            jobs = try await queue.claimDue(owner: configuration.owner, limit: limit, now: Date(), lease: configuration.lease, excludingEndpoints: slowEndpoints)
            full = jobs.count == limit
            let room = min(free - jobs.count, slowLimit - state.withLock { $0.slowInFlight })
            if !slowEndpoints.isEmpty && room > 0 {
                let more = try await queue.claimDue(owner: configuration.owner, limit: room, now: Date(), lease: configuration.lease)
                jobs += more
                full = full || more.count == room
            }
        } catch {
            // Jobs of a first claim that succeeded are still delivered.
            logger.error("Could not claim due deliveries", metadata: ["error": "\(error)"])
            full = false
        }
        let (claimed, inFlight) = state.withLock { [jobs, full] state in
            state.backlog = full
            state.inFlight += jobs.count
            let claimed = jobs.map { job in (job, slowLane: state.slowEndpoints[job.endpointID] != nil) }
            state.slowInFlight += claimed.count { $0.slowLane }
            return (claimed, state.inFlight)
        }
        inFlightGauge.record(inFlight)
        return claimed
    }

    /// Sends one delivery and records the attempt; a transfer cancelled by shutdown is not an attempt.
    private func deliver(_ job: DeliveryJob, slowLane: Bool) async {
        var slow: Bool?
        defer {
            let (inFlight, wake) = state.withLock { state in
                state.inFlight -= 1
                if slowLane { state.slowInFlight -= 1 }
                if let slow { Self.mark(job.endpointID, slow: slow, in: &state) }
                return (state.inFlight, state.backlog || state.stopping ? state.wake : nil)
            }
            inFlightGauge.record(inFlight)
            wake?.yield()
        }
        let startedAt = Date()
        let timestamp = Int64(startedAt.timeIntervalSince1970)
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
            slow = true
        } else if result.status != nil {
            slow = false
        }

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
            if outcome == .endpointDisabled {
                try await queue.disableEndpoint(id: job.endpointID, reason: "The endpoint answered 410 Gone.")
            }
            try await queue.record(job, attempt: attempt, outcome: outcome)
            outcomes[outcome.name]?.increment()
        } catch {
            // The lease runs out and the delivery is claimed again: at least once, never lost.
            logger.error("Could not record a delivery attempt", metadata: ["delivery": "\(job.id)", "error": "\(error)"])
        }
        if outcome != .succeeded {
            logger.debug("Webhook delivery attempt failed", metadata: [
                "delivery": "\(job.id)", "attempt": "\(job.attempt)", "outcome": "\(outcome.name)",
                "status": "\(result.status.map(String.init) ?? "-")", "error": "\(result.error?.description ?? "-")",
            ])
        }
    }

    /// Notes whether an endpoint answered slowly; forgets marks unrefreshed for 15 minutes once many pile up.
    private static func mark(_ endpoint: String, slow: Bool, in state: inout State) {
        guard slow else {
            state.slowEndpoints[endpoint] = nil
            return
        }
        let now = ContinuousClock.now
        state.slowEndpoints[endpoint] = now
        if state.slowEndpoints.count > 10_000 {
            state.slowEndpoints = state.slowEndpoints.filter { now - $0.value < .seconds(900) }
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
