import Testing
@testable import FormhouseApp

/// The per-client token buckets behind 429.
struct RateLimiterTests {
    @Test func aTinyRateWaitsAtMostADayInsteadOfTrapping() throws {
        let limiter = RateLimiter(burst: 1, perSecond: 1e-20)
        try limiter.admit("client", now: 0)
        do {
            try limiter.admit("client", now: 0)
            Issue.record("the second submission was admitted")
        } catch let problem as APIProblem {
            #expect(problem.status == 429)
            #expect(problem.headers.first { $0.0 == "Retry-After" }?.1 == "86400")
        }
    }

    @Test func costsAreTakenWholeAndCappedAtTheBurst() throws {
        #expect(RateLimiter.cost(ofBody: 100) == 1 && RateLimiter.cost(ofBody: 65_536) == 2 && RateLimiter.cost(ofBody: 1 << 20) == 17)
        let limiter = RateLimiter(burst: 5, perSecond: 1)
        try limiter.admit("a", cost: 3, now: 0)
        #expect(throws: APIProblem.self) { try limiter.admit("a", cost: 3, now: 0) }
        try limiter.admit("a", cost: 3, now: 1)
        // A cost past the burst takes the whole bucket rather than never passing.
        try limiter.admit("b", cost: 50, now: 0)
        #expect(throws: APIProblem.self) { try limiter.admit("b", now: 0) }
    }

    @Test func aLimitedClientStaysLimitedThroughAFloodOfNewAddresses() throws {
        let limiter = RateLimiter(burst: 2, perSecond: 1e-9, maxClients: 8)
        try limiter.admit("192.0.2.1", now: 0)
        try limiter.admit("192.0.2.1", now: 0)
        #expect(throws: APIProblem.self) { try limiter.admit("192.0.2.1", now: 0) }
        for index in 0..<1_000 {
            try limiter.admit("10.\(index / 65_536).\(index / 256 % 256).\(index % 256)", now: 1)
        }
        // Forgetting its bucket would have given it a full one.
        #expect(throws: APIProblem.self) { try limiter.admit("192.0.2.1", now: 2) }
        #expect(limiter.trackedClients <= 8)
    }

    @Test func aFullTableForgetsTheFullestBucketsFirst() throws {
        let limiter = RateLimiter(burst: 2, perSecond: 1, maxClients: 4)
        for client in ["192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.9", "192.0.2.9"] {
            try limiter.admit(client, now: 0)
        }
        // At 0.5 s no bucket is full again; a fifth client makes room by dropping the fuller half.
        try limiter.admit("198.51.100.1", now: 0.5)
        #expect(limiter.trackedClients == 3)
        #expect(throws: APIProblem.self) { try limiter.admit("192.0.2.9", now: 0.5) }
        // At 10 s the older buckets have refilled: the next newcomer past the bound drops them all.
        try limiter.admit("198.51.100.2", now: 10)
        #expect(limiter.trackedClients == 4)
        try limiter.admit("198.51.100.3", now: 10)
        #expect(limiter.trackedClients == 2)
    }

    @Test func anIPv6SubscriberNetworkIsOneClient() throws {
        let limiter = RateLimiter(burst: 1, perSecond: 1e-9)
        try limiter.admit("2001:db8:1:2::1", now: 0)
        #expect(throws: APIProblem.self) { try limiter.admit("2001:db8:1:2:ffff:ffff:ffff:9", now: 0) }
        try limiter.admit("2001:db8:1:3::1", now: 0)
        try limiter.admit("192.0.2.1", now: 0)
        #expect(RateLimiter.client(of: "2001:db8:1:2:aaaa::7") == "2001:db8:1:2::/64")
        #expect(RateLimiter.client(of: "::1") == "::/64")
        #expect(RateLimiter.client(of: "192.0.2.1") == "192.0.2.1")
        #expect(RateLimiter.client(of: "not an address") == "not an address")
    }
}
