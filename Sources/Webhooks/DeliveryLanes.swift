/// The worker's memory of how fast each endpoint answers, deciding which endpoints may get more
/// deliveries now, so that slow receivers cannot take the slots fast ones need.
///
/// - An endpoint not heard from yet gets one delivery in flight (a probe) until it answers.
/// - An endpoint whose attempt took `threshold` or more, or timed out, or is still running past
///   `threshold`, is slow; slow endpoints together hold at most `slowLimit` slots, shared evenly
///   among them, so that one fast endpoint wrongly taken for slow (by a burst of load, say) soon gets
///   a turn, answers quickly and is fast again.
/// - An endpoint that answers within `threshold` is fast; like every endpoint it has at most
///   `endpointLimit` deliveries in flight, so no receiver is flooded with parallel connections.
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
    let endpointLimit: Int
    private var endpoints: [String: Endpoint] = [:]
    private var running: [UInt64: Running] = [:]
    private var nextToken: UInt64 = 0
    private(set) var slowInFlight = 0
    /// Endpoints of unknown speed with their probe in flight.
    private(set) var probing: Set<String> = []
    /// Endpoints known to be slow.
    private(set) var slow: Set<String> = []
    /// Endpoints with `endpointLimit` deliveries in flight.
    private(set) var saturated: Set<String> = []

    init(threshold: Duration, slowLimit: Int, endpointLimit: Int) {
        self.threshold = threshold
        self.slowLimit = max(1, slowLimit)
        self.endpointLimit = max(1, endpointLimit)
    }

    /// Deliveries in flight.
    var inFlight: Int { running.count }

    /// Slots the slow lane still has.
    var slowRoom: Int { slowLimit - slowInFlight }

    /// Slow endpoints holding their even share of the slow lane.
    var slowAtShare: Set<String> {
        let share = max(1, slowLimit / max(1, slow.count))
        return slow.filter { (endpoints[$0]?.inFlight ?? 0) >= share }
    }

    /// What each endpoint with deliveries in flight may still get under `endpointLimit` (endpoints
    /// not listed have none in flight).
    var roomByEndpoint: [String: Int] {
        var room: [String: Int] = [:]
        for (endpoint, state) in endpoints where state.inFlight > 0 { room[endpoint] = endpointLimit - state.inFlight }
        return room
    }

    /// Notes a delivery starting; the token identifies it to `finish`.
    mutating func start(_ endpoint: String, now: ContinuousClock.Instant = .now) -> UInt64 {
        var state = endpoints[endpoint] ?? Endpoint(seen: now)
        state.inFlight += 1
        state.seen = now
        let isSlow = state.speed == .slow
        if isSlow { slowInFlight += 1 }
        endpoints[endpoint] = state
        classify(endpoint, state)
        nextToken += 1
        running[nextToken] = Running(endpoint: endpoint, started: now, slow: isSlow)
        return nextToken
    }

    /// Notes a delivery ending; `speed` is what it showed of its endpoint, nil when nothing (a refused connection, a cancel).
    ///
    /// Returns true when claims skipped deliveries this one's end may let through: it freed a
    /// slow-lane slot, or its endpoint stopped being probed or saturated.
    @discardableResult
    mutating func finish(_ token: UInt64, speed: Speed?, now: ContinuousClock.Instant = .now) -> Bool {
        guard let run = running.removeValue(forKey: token), var state = endpoints[run.endpoint] else { return false }
        let wasBlocked = probing.contains(run.endpoint) || saturated.contains(run.endpoint)
        if run.slow { slowInFlight -= 1 }
        state.inFlight -= 1
        state.seen = now
        if let speed { state.speed = speed }
        endpoints[run.endpoint] = state
        classify(run.endpoint, state)
        if endpoints.count > 10_000 { forget(before: now - .seconds(900)) }
        return run.slow || (wasBlocked && !probing.contains(run.endpoint) && !saturated.contains(run.endpoint))
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
        // Cleared only at half the limit, so a busy endpoint is claimed for in batches, not one by one.
        if state.inFlight >= endpointLimit {
            saturated.insert(endpoint)
        } else if state.inFlight <= endpointLimit / 2 {
            saturated.remove(endpoint)
        }
    }

    /// Drops idle endpoints not seen since `cutoff`, so deleted endpoints do not pile up.
    private mutating func forget(before cutoff: ContinuousClock.Instant) {
        for (endpoint, state) in endpoints where state.inFlight == 0 && state.seen < cutoff {
            endpoints[endpoint] = nil
            probing.remove(endpoint)
            slow.remove(endpoint)
            saturated.remove(endpoint)
        }
    }
}
