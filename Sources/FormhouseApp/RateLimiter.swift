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
    private let buckets = Mutex<[String: Bucket]>([:])

    init(burst: Int, perSecond: Double, maxClients: Int = 100_000) {
        self.burst = Double(burst)
        self.perSecond = perSecond
        self.maxClients = maxClients
    }

    /// Takes one token for `client`, or throws 429 with the seconds until one is available.
    func admit(_ client: String, now: Double = ProcessInfo.processInfo.systemUptime) throws {
        let wait: Double? = buckets.withLock { table in
            var bucket = table[client] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + (now - bucket.updated) * perSecond)
            bucket.updated = now
            defer {
                if table.count >= maxClients && table[client] == nil { prune(&table, now: now) }
                table[client] = bucket
            }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return (1 - bucket.tokens) / perSecond
        }
        if let wait {
            // Clamped before the conversion: a tiny configured rate would make the wait overflow `Int`.
            let seconds = max(1, Int(min(wait, 86_400).rounded(.up)))
            throw APIProblem(status: 429, slug: "rate-limited", title: "Too many requests",
                             detail: "This client sent submissions (or asked for old form versions) faster than \(perSecond) per second; retry after \(seconds) s.",
                             headers: [("Retry-After", String(seconds))])
        }
    }

    private func prune(_ table: inout [String: Bucket], now: Double) {
        table = table.filter { min(burst, $0.value.tokens + (now - $0.value.updated) * perSecond) < burst }
        if table.count >= maxClients { table.removeAll(keepingCapacity: true) }
    }
}
