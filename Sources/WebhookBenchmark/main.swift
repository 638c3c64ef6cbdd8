import Foundation
import Logging
import WebhookReceiver
import Webhooks

// Webhook delivery benchmark over loopback: one request at a time (baseline), the worker against one
// fast receiver, and 1,000 endpoints of which half answer after 2 s.

/// An in-memory outbox, a FIFO per endpoint taken round-robin, that notes when each delivery ends.
actor BenchmarkQueue: DeliveryQueue {
    private var queues: [String: [DeliveryJob]] = [:]
    private var heads: [String: Int] = [:]
    private var endpoints: [String] = []
    private var cursor = 0
    private(set) var finished: [String: ContinuousClock.Instant] = [:]
    private var waiters: [(Set<String>, CheckedContinuation<Void, Never>)] = []

    func add(_ jobs: [DeliveryJob]) {
        for job in jobs {
            if queues[job.endpointID] == nil {
                endpoints.append(job.endpointID)
                heads[job.endpointID] = 0
            }
            queues[job.endpointID, default: []].append(job)
        }
    }

    /// Honours the exclusions; an endpoint with no room left counts as excluded, one with some room
    /// is not held to it.
    func claimDue(
        owner: String, limit: Int, now: Date, lease: TimeInterval, excludingEndpoints: Set<String>, roomByEndpoint: [String: Int]
    ) async throws -> [DeliveryJob] {
        let excludingEndpoints = excludingEndpoints.union(roomByEndpoint.filter { $0.value <= 0 }.keys)
        var jobs: [DeliveryJob] = []
        var idle = 0
        while jobs.count < limit && idle < endpoints.count {
            let endpoint = endpoints[cursor]
            cursor = (cursor + 1) % endpoints.count
            let head = heads[endpoint]!
            guard !excludingEndpoints.contains(endpoint), head < queues[endpoint]!.count else {
                idle += 1
                continue
            }
            idle = 0
            jobs.append(queues[endpoint]![head])
            heads[endpoint] = head + 1
        }
        return jobs
    }

    func record(_ job: DeliveryJob, attempt: DeliveryAttempt, outcome: DeliveryOutcome) async throws {
        if outcome == .succeeded { finished[job.id] = .now }
        waiters.removeAll { ids, continuation in
            guard ids.allSatisfy({ finished[$0] != nil }) else { return false }
            continuation.resume()
            return true
        }
    }

    func releaseLeases(owner: String) async throws {}
    func disableEndpoint(id: String, reason: String) async throws {}

    /// Returns once every delivery in `ids` has succeeded.
    func waitFor(_ ids: Set<String>) async {
        if ids.allSatisfy({ finished[$0] != nil }) { return }
        await withCheckedContinuation { waiters.append((ids, $0)) }
    }
}

func job(_ id: String, endpoint: String, url: String, secret: WebhookSecret) -> DeliveryJob {
    let data = Array(#"{"id":"\#(id)","formId":"signup","formVersion":1,"receivedAt":"2026-11-21T05:00:00Z","values":{"name":"Ana","mail":"ana@example.com"}}"#.utf8)
    return DeliveryJob(id: id, endpointID: endpoint, url: url, secrets: [secret],
                       payload: WebhookPayload.envelope(timestamp: Date(), data: data), attempt: 1)
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func format(_ value: Double) -> String { String(format: "%.0f", value) }

/// Runs a worker until `body` returns, then stops it without waiting for stragglers.
func withWorker(_ queue: BenchmarkQueue, client: CurlClient, _ body: (DeliveryWorker) async -> Void) async {
    var logger = Logger(label: "benchmark")
    logger.logLevel = .error
    let worker = DeliveryWorker(queue: queue, client: client, schedule: RetrySchedule(delays: [.seconds(3600)]),
                                configuration: .init(shutdownGrace: .zero), logger: logger)
    let running = Task { try await worker.run() }
    await body(worker)
    running.cancel()
    _ = try? await running.value
}

let policy = AddressPolicy(allowInsecure: true, allowPrivate: true)
let secret = WebhookSecret.generate()
let fast = try LoopbackReceiver(recording: false) { _ in ReceiverReply(status: 200) }
let slow = try LoopbackReceiver(recording: false) { _ in ReceiverReply(status: 200, delay: .seconds(2)) }
let client = CurlClient(configuration: .init(policy: policy))

/// Sends `count` signed deliveries one at a time, each awaited before the next: the simplest sender.
func oneAtATime(_ count: Int, to url: String) async -> Double {
    let start = ContinuousClock.now
    for index in 0..<count {
        let timestamp = Int64(Date().timeIntervalSince1970)
        let sample = job("base_\(index)", endpoint: "base", url: url, secret: secret)
        _ = await client.send(OutgoingRequest(url: sample.url, headers: [
            ("content-type", "application/json"), ("webhook-id", sample.id), ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", WebhookSigner.sign(id: sample.id, timestamp: timestamp, body: sample.payload, secrets: [secret])),
        ], body: sample.payload))
    }
    return Double(count) / seconds(ContinuousClock.now - start)
}

/// What one run of the worker measured.
struct WorkerRun {
    /// From the start until every awaited delivery had succeeded.
    var seconds: Double
    /// The awaited deliveries' median and 99th-percentile times to success, from the start.
    var p50: Double
    var p99: Double
    /// The deliveries that succeeded, awaited or not.
    var finished: Int
}

/// Queues `jobs` and runs a worker until every delivery in `awaited` has succeeded.
func runWorker(_ jobs: [DeliveryJob], awaiting awaited: [DeliveryJob]) async -> WorkerRun {
    let queue = BenchmarkQueue()
    await queue.add(jobs)
    let ids = awaited.map(\.id)
    let start = ContinuousClock.now
    await withWorker(queue, client: client) { worker in
        worker.notify()
        await queue.waitFor(Set(ids))
    }
    let time = seconds(ContinuousClock.now - start)
    let finished = await queue.finished
    let times = ids.compactMap { finished[$0] }.map { seconds($0 - start) }.sorted()
    return WorkerRun(seconds: time, p50: times[times.count / 2], p99: times[times.count * 99 / 100], finished: finished.count)
}

/// Delivers `count` deliveries to one endpoint through the worker.
func throughWorker(_ count: Int, to url: String, prefix: String) async -> Double {
    let jobs = (0..<count).map { job("\(prefix)_\($0)", endpoint: prefix, url: url, secret: secret) }
    return Double(count) / (await runWorker(jobs, awaiting: jobs)).seconds
}

// A: one receiver that answers at once.
let baselineRate = await oneAtATime(2_000, to: fast.url)
let rateA = await throughWorker(20_000, to: fast.url, prefix: "a")
print("fast receiver, one at a time:     \(format(baselineRate)) deliveries/s (2000 deliveries)")
print("fast receiver, worker:            \(format(rateA)) deliveries/s (20000 deliveries, \(String(format: "%.1f", rateA / baselineRate))x one at a time)")

// C: one receiver 20 ms away (it answers after 20 ms), where waiting one at a time costs most.
let distant = try LoopbackReceiver(recording: false) { _ in ReceiverReply(status: 200, delay: .milliseconds(20)) }
let distantBaseline = await oneAtATime(100, to: distant.url)
let distantRate = await throughWorker(5_000, to: distant.url, prefix: "c")
print("20 ms receiver, one at a time:    \(format(distantBaseline)) deliveries/s (100 deliveries)")
print("20 ms receiver, worker:           \(format(distantRate)) deliveries/s (5000 deliveries, \(String(format: "%.0f", distantRate / distantBaseline))x one at a time; 64 in flight per endpoint)")
distant.stop()

// B: 1,000 endpoints, 20 deliveries each, interleaved; endpoints 500-999 answer after 2 s.
let perEndpoint = 20
func endpointJobs(_ prefix: String, endpoints: Range<Int>) -> [DeliveryJob] {
    var jobs: [DeliveryJob] = []
    for round in 0..<perEndpoint {
        for endpoint in endpoints {
            let receiver = endpoint < 500 ? fast : slow
            jobs.append(job("\(prefix)_\(endpoint)_\(round)", endpoint: "ep_\(endpoint)", url: receiver.url + "/ep/\(endpoint)", secret: secret))
        }
    }
    return jobs
}

/// The awaited deliveries' rate, total time and percentiles, as the report prints them.
func describe(_ run: WorkerRun, _ count: Int, _ kind: String) -> String {
    "\(format(Double(count) / run.seconds)) \(kind)deliveries/s, all \(count) \(kind)done in \(String(format: "%.2f", run.seconds)) s, "
        + "p50 \(String(format: "%.2f", run.p50)) s, p99 \(String(format: "%.2f", run.p99)) s"
}

let fastOnly = endpointJobs("b1", endpoints: 0..<500)
let alone = await runWorker(fastOnly, awaiting: fastOnly)
print("500 fast endpoints alone:         \(describe(alone, fastOnly.count, ""))")

let mixed = endpointJobs("b2", endpoints: 0..<1000)
let fastMixed = mixed.filter { Int($0.endpointID.dropFirst(3))! < 500 }
let together = await runWorker(mixed, awaiting: fastMixed)
print("same, plus 500 endpoints at 2 s:  \(describe(together, fastMixed.count, "fast ")) (\(together.finished - fastMixed.count) slow done meanwhile)")
print("fast endpoints' time with slow ones present: \(String(format: "%.2f", together.seconds / alone.seconds))x their time alone")

client.shutdown()
fast.stop()
slow.stop()
