import Foundation
import Synchronization

/// A token bucket per client address for submissions: `burst` at once, refilled at `perSecond`.
///
/// The table is bounded: when it reaches `maxClients`, buckets that have refilled completely (clients
/// that went quiet) are dropped, so a flood of distinct addresses cannot grow memory without bound.
final class RateLimiter: Sendable {
    private struct Bucket { var tokens: Double; var updated: Double }

    private let burst: Double
    private let perSecond: Double
    private let maxClients: Int
    /// What the 429's detail says was sent too fast.
    private let what: String
    private let buckets = Mutex<[String: Bucket]>([:])

    init(burst: Int, perSecond: Double, maxClients: Int = 100_000,
         what: String = "submissions (or asked for old form versions)") {
        self.burst = Double(burst)
        self.perSecond = perSecond
        self.maxClients = maxClients
        self.what = what
    }

    /// What a request body costs: one token, and one more per full 64 KiB, since parsing and
    /// validating cost in proportion to the body (a 1 MiB body, about 0.4 s of CPU at worst, is 17).
    static func cost(ofBody bytes: Int) -> Double {
        Double(1 + bytes / 65_536)
    }

    /// Takes `cost` tokens (at most a full bucket) for `client`, or throws 429 with the seconds until
    /// they are available.
    func admit(_ client: String, cost: Double = 1, now: Double = ProcessInfo.processInfo.systemUptime) throws {
        let cost = min(cost, burst)
        let wait: Double? = buckets.withLock { table in
            var bucket = table[client] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + (now - bucket.updated) * perSecond)
            bucket.updated = now
            defer {
                if table.count >= maxClients && table[client] == nil { prune(&table, now: now) }
                table[client] = bucket
            }
            if bucket.tokens >= cost {
                bucket.tokens -= cost
                return nil
            }
            return (cost - bucket.tokens) / perSecond
        }
        if let wait {
            // Clamped before the conversion: a tiny configured rate would make the wait overflow `Int`.
            let seconds = max(1, Int(min(wait, 86_400).rounded(.up)))
            throw APIProblem(status: 429, slug: "rate-limited", title: "Too Many Requests",
                             detail: "This client sent \(what) faster than \(perSecond) per second (large bodies count more); retry after \(seconds) s.",
                             headers: [("Retry-After", String(seconds))])
        }
    }

    private func prune(_ table: inout [String: Bucket], now: Double) {
        table = table.filter { min(burst, $0.value.tokens + (now - $0.value.updated) * perSecond) < burst }
        if table.count >= maxClients { table.removeAll(keepingCapacity: true) }
    }
}
