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
        } catch let limited as RateLimited {
            #expect(limited.seconds == 86_400)
            #expect(limited.problem.response.status == 429)
            #expect(limited.problem.response.headers["Retry-After"] == "86400")
        }
    }

    @Test func costsAreTakenWholeAndCappedAtTheBurst() throws {
        #expect(RateLimiter.cost(ofBody: 100) == 1 && RateLimiter.cost(ofBody: 65_536) == 2 && RateLimiter.cost(ofBody: 1 << 20) == 17)
        let limiter = RateLimiter(burst: 5, perSecond: 1)
        try limiter.admit("a", cost: 3, now: 0)
        #expect(throws: RateLimited.self) { try limiter.admit("a", cost: 3, now: 0) }
        try limiter.admit("a", cost: 3, now: 1)
        // A cost past the burst takes the whole bucket rather than never passing.
        try limiter.admit("b", cost: 50, now: 0)
        #expect(throws: RateLimited.self) { try limiter.admit("b", now: 0) }
    }

    @Test func aLimitedClientStaysLimitedThroughAFloodOfNewAddresses() throws {
        let limiter = RateLimiter(burst: 2, perSecond: 1e-9, maxClients: 8)
        try limiter.admit("192.0.2.1", now: 0)
        try limiter.admit("192.0.2.1", now: 0)
        #expect(throws: RateLimited.self) { try limiter.admit("192.0.2.1", now: 0) }
        for index in 0..<1_000 {
            try limiter.admit("10.\(index / 65_536).\(index / 256 % 256).\(index % 256)", now: 1)
        }
        // Forgetting its bucket would have given it a full one.
        #expect(throws: RateLimited.self) { try limiter.admit("192.0.2.1", now: 2) }
        #expect(limiter.trackedClients <= 8)
    }

    @Test func aFullTableForgetsTheFullestBucketsFirst() throws {
        let limiter = RateLimiter(burst: 10, perSecond: 1e-9, maxClients: 8)
        // Client i has spent i + 1 tokens, so each bucket is at a different level.
        for i in 0..<8 {
            for _ in 0...i { try limiter.admit("192.0.2.\(i)", now: 0) }
        }
        // A ninth client: none has refilled, so the four fullest (0 to 3) are dropped.
        try limiter.admit("198.51.100.1", now: 0)
        #expect(limiter.trackedClients == 5)
        for i in 4..<8 {
            // Kept: at most 5 tokens left, where a forgotten bucket would have 10.
            #expect(throws: RateLimited.self, "192.0.2.\(i)") { try limiter.admit("192.0.2.\(i)", cost: 6, now: 0) }
        }
        for i in 0..<2 {
            // Forgotten: a whole bucket again (client 0 had 9 left, client 1 had 8).
            try limiter.admit("192.0.2.\(i)", cost: 10, now: 0)
        }
    }

    @Test func refilledBucketsAreDroppedFirst() throws {
        let limiter = RateLimiter(burst: 2, perSecond: 1, maxClients: 4)
        for client in ["192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4"] { try limiter.admit(client, now: 0) }
        // At 10 s all four have refilled: the next newcomer past the bound drops them all.
        try limiter.admit("198.51.100.1", now: 10)
        #expect(limiter.trackedClients == 1)
    }

    @Test func anIPv6SubscriberNetworkIsOneClient() throws {
        let limiter = RateLimiter(burst: 1, perSecond: 1e-9)
        try limiter.admit("2001:db8:1:2::1", now: 0)
        #expect(throws: RateLimited.self) { try limiter.admit("2001:db8:1:2:ffff:ffff:ffff:9", now: 0) }
        try limiter.admit("2001:db8:1:3::1", now: 0)
        try limiter.admit("192.0.2.1", now: 0)
        #expect(RateLimiter.client(of: "2001:db8:1:2:aaaa::7") == "2001:db8:1:2::/64")
        // Not subscriber networks: NAT64 stands for its IPv4 client; link-local and ::/96 count whole.
        #expect(RateLimiter.client(of: "64:ff9b::c000:201") == "192.0.2.1")
        #expect(RateLimiter.client(of: "fe80::1") == "fe80::1")
        #expect(RateLimiter.client(of: "fe80::2") == "fe80::2")
        #expect(RateLimiter.client(of: "::1") == "::1")
        #expect(RateLimiter.client(of: "192.0.2.1") == "192.0.2.1")
        #expect(RateLimiter.client(of: "not an address") == "not an address")
    }
}
