/// The worker's memory of how fast each endpoint answers, deciding which endpoints may get more
/// deliveries now, so that slow receivers cannot take the slots fast ones need.
///
/// - An endpoint not heard from yet gets one delivery in flight (a probe) until it answers.
/// - An endpoint whose attempt took `threshold` or more, or timed out, or is still running past
///   `threshold`, is slow; slow endpoints together hold at most `slowLimit` slots.
/// - An endpoint that answers within `threshold` is fast and unrestricted.
struct DeliveryLanes {
    enum Speed { case fast, slow }

    private struct Endpoint {
        var speed: Speed?
        var inFlight = 0
        var seen: ContinuousClock.Instant
    }

    private struct Running {
        let endpoint: String
        let started: ContinuousClock.Instant
        var slow: Bool
    }

    let threshold: Duration
    let slowLimit: Int
    private var endpoints: [String: Endpoint] = [:]
    private var running: [UInt64: Running] = [:]
    private var nextToken: UInt64 = 0
    private(set) var slowInFlight = 0
    /// Endpoints of unknown speed with their probe in flight.
    private(set) var probing: Set<String> = []
    /// Endpoints known to be slow.
    private(set) var slow: Set<String> = []

    init(threshold: Duration, slowLimit: Int) {
        self.threshold = threshold
        self.slowLimit = max(1, slowLimit)
    }

    /// Deliveries in flight.
    var inFlight: Int { running.count }

    /// Slots the slow lane still has.
    var slowRoom: Int { slowLimit - slowInFlight }

    /// Notes a delivery starting; the token identifies it to `finish`.
    mutating func start(_ endpoint: String, now: ContinuousClock.Instant = .now) -> UInt64 {
        var state = endpoints[endpoint] ?? Endpoint(seen: now)
        state.inFlight += 1
        state.seen = now
        let isSlow = state.speed == .slow
        if isSlow { slowInFlight += 1 }
        if state.speed == nil { probing.insert(endpoint) }
        endpoints[endpoint] = state
        nextToken += 1
        running[nextToken] = Running(endpoint: endpoint, started: now, slow: isSlow)
        return nextToken
    }

    /// Notes a delivery ending; `speed` is what it showed of its endpoint, nil when nothing (a refused connection, a cancel).
    mutating func finish(_ token: UInt64, speed: Speed?, now: ContinuousClock.Instant = .now) {
        guard let run = running.removeValue(forKey: token), var state = endpoints[run.endpoint] else { return }
        if run.slow { slowInFlight -= 1 }
        state.inFlight -= 1
        state.seen = now
        if let speed { state.speed = speed }
        endpoints[run.endpoint] = state
        classify(run.endpoint, state)
        if endpoints.count > 10_000 { forget(before: now - .seconds(900)) }
    }

    /// Moves deliveries running past the threshold into the slow lane, marking their endpoints slow.
    mutating func sweep(now: ContinuousClock.Instant = .now) {
        for (token, run) in running where !run.slow && now - run.started >= threshold {
            running[token]?.slow = true
            slowInFlight += 1
            if var state = endpoints[run.endpoint] {
                state.speed = .slow
                endpoints[run.endpoint] = state
                classify(run.endpoint, state)
            }
        }
    }

    private mutating func classify(_ endpoint: String, _ state: Endpoint) {
        if state.speed == nil && state.inFlight > 0 { probing.insert(endpoint) } else { probing.remove(endpoint) }
        if state.speed == .slow { slow.insert(endpoint) } else { slow.remove(endpoint) }
    }

    /// Drops idle endpoints not seen since `cutoff`, so deleted endpoints do not pile up.
    private mutating func forget(before cutoff: ContinuousClock.Instant) {
        for (endpoint, state) in endpoints where state.inFlight == 0 && state.seen < cutoff {
            endpoints[endpoint] = nil
            probing.remove(endpoint)
            slow.remove(endpoint)
        }
    }
}
