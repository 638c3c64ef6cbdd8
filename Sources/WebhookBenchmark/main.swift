import Foundation
import Logging
import WebhookReceiver
import Webhooks

// Webhook delivery benchmark over loopback: one request at a time (baseline), the worker against one
// fast receiver, and 1,000 endpoints of which half answer after 2 s.

/// An in-memory outbox that notes when each delivery ends.
actor BenchmarkQueue: DeliveryQueue {
    private var pending: [DeliveryJob] = []
    private var next = 0
    private var skipped: [DeliveryJob] = []
    private(set) var finished: [String: ContinuousClock.Instant] = [:]
    private(set) var attempts = 0
    private var waiters: [(Set<String>, CheckedContinuation<Void, Never>)] = []

    func add(_ jobs: [DeliveryJob]) { pending.append(contentsOf: jobs) }

    func claimDue(owner: String, limit: Int, now: Date, lease: TimeInterval) async throws -> [DeliveryJob] {
        try await claimDue(owner: owner, limit: limit, now: now, lease: lease, excludingEndpoints: [])
    }

    func claimDue(owner: String, limit: Int, now: Date, lease: TimeInterval, excludingEndpoints: Set<String>) async throws -> [DeliveryJob] {
        var jobs: [DeliveryJob] = []
        var kept: [DeliveryJob] = []
        for job in skipped {
            if jobs.count < limit && !excludingEndpoints.contains(job.endpointID) { jobs.append(job) } else { kept.append(job) }
        }
        skipped = kept
        while jobs.count < limit && next < pending.count {
            let job = pending[next]
            next += 1
            if excludingEndpoints.contains(job.endpointID) { skipped.append(job) } else { jobs.append(job) }
        }
        return jobs
    }

    func record(_ job: DeliveryJob, attempt: DeliveryAttempt, outcome: DeliveryOutcome) async throws {
        attempts += 1
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

// Baseline: one request at a time over a reused connection, the simplest sender.
let baselineCount = 2_000
let baselineStart = ContinuousClock.now
for index in 0..<baselineCount {
    let timestamp = Int64(Date().timeIntervalSince1970)
    let sample = job("base_\(index)", endpoint: "fast", url: fast.url, secret: secret)
    _ = await client.send(OutgoingRequest(url: sample.url, headers: [
        ("content-type", "application/json"), ("webhook-id", sample.id), ("webhook-timestamp", String(timestamp)),
        ("webhook-signature", WebhookSigner.sign(id: sample.id, timestamp: timestamp, body: sample.payload, secrets: [secret])),
    ], body: sample.payload))
}
let baselineRate = Double(baselineCount) / seconds(ContinuousClock.now - baselineStart)
print("baseline, one at a time:          \(format(baselineRate)) deliveries/s (\(baselineCount) deliveries)")

// A: the worker, one fast receiver.
let burst = 20_000
let queueA = BenchmarkQueue()
await queueA.add((0..<burst).map { job("a_\($0)", endpoint: "fast", url: fast.url, secret: secret) })
let startA = ContinuousClock.now
await withWorker(queueA, client: client) { worker in
    worker.notify()
    await queueA.waitFor(Set((0..<burst).map { "a_\($0)" }))
}
let rateA = Double(burst) / seconds(ContinuousClock.now - startA)
print("worker, one fast receiver:        \(format(rateA)) deliveries/s (\(burst) deliveries, \(String(format: "%.1f", rateA / baselineRate))x baseline)")

// B: 1,000 endpoints, 10 deliveries each, interleaved; endpoints 500-999 answer after 2 s.
let perEndpoint = 10
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

func fastPercentiles(_ queue: BenchmarkQueue, _ ids: [String], since start: ContinuousClock.Instant) async -> (p50: Double, p99: Double) {
    let finished = await queue.finished
    let times = ids.compactMap { finished[$0] }.map { seconds($0 - start) }.sorted()
    return (times[times.count / 2], times[times.count * 99 / 100])
}

let fastOnly = endpointJobs("b1", endpoints: 0..<500)
let queueB1 = BenchmarkQueue()
await queueB1.add(fastOnly)
let startB1 = ContinuousClock.now
await withWorker(queueB1, client: client) { worker in
    worker.notify()
    await queueB1.waitFor(Set(fastOnly.map(\.id)))
}
let timeB1 = seconds(ContinuousClock.now - startB1)
let (p50B1, p99B1) = await fastPercentiles(queueB1, fastOnly.map(\.id), since: startB1)
print("500 fast endpoints alone:         \(format(Double(fastOnly.count) / timeB1)) deliveries/s, all \(fastOnly.count) done in \(String(format: "%.2f", timeB1)) s, p50 \(String(format: "%.2f", p50B1)) s, p99 \(String(format: "%.2f", p99B1)) s")

let mixed = endpointJobs("b2", endpoints: 0..<1000)
let fastMixed = mixed.filter { Int($0.endpointID.dropFirst(3))! < 500 }
let queueB2 = BenchmarkQueue()
await queueB2.add(mixed)
let startB2 = ContinuousClock.now
await withWorker(queueB2, client: client) { worker in
    worker.notify()
    await queueB2.waitFor(Set(fastMixed.map(\.id)))
}
let timeB2 = seconds(ContinuousClock.now - startB2)
let (p50B2, p99B2) = await fastPercentiles(queueB2, fastMixed.map(\.id), since: startB2)
let slowDone = await queueB2.finished.count - fastMixed.count
print("same, plus 500 endpoints at 2 s:  \(format(Double(fastMixed.count) / timeB2)) fast deliveries/s, all \(fastMixed.count) fast done in \(String(format: "%.2f", timeB2)) s, p50 \(String(format: "%.2f", p50B2)) s, p99 \(String(format: "%.2f", p99B2)) s (\(slowDone) slow done meanwhile)")
print("fast endpoints' time with slow ones present: \(String(format: "%.2f", timeB2 / timeB1))x their time alone")

client.shutdown()
fast.stop()
slow.stop()
