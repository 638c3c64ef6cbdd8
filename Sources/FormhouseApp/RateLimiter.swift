import Foundation
import Synchronization
import Webhooks

/// A token bucket per client for submissions: `burst` at once, refilled at `perSecond`. A client is
/// an IPv4 address, or an IPv6 /64 (one subscriber's network: its hosts choose their own addresses).
///
/// The table is bounded: when it reaches `maxClients`, buckets that have refilled completely (clients
/// that went quiet) are dropped and, if more than half the bound remain, the fullest down to half. Forgetting a
/// bucket refills it, so the emptiest ones, the clients being held back, are kept longest: a flood of
/// fresh addresses neither grows memory without bound nor frees a client that was limited.
final class RateLimiter: Sendable {
    private struct Bucket { var tokens: Double; var updated: Double }

    private let burst: Double
    private let perSecond: Double
    private let maxClients: Int
    /// What the bucket counts, for the refusal.
    private let what: RateLimited.Traffic
    private let buckets = Mutex<[String: Bucket]>([:])

    init(burst: Int, perSecond: Double, maxClients: Int = 100_000,
         what: RateLimited.Traffic = .submissions) {
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

    /// Takes `cost` tokens (at most a full bucket) for `client`, or throws ``RateLimited`` with the seconds until
    /// they are available.
    func admit(_ address: String, cost: Double = 1, now: Double = ProcessInfo.processInfo.systemUptime) throws {
        let client = Self.client(of: address)
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
            throw RateLimited(what: what, perSecond: perSecond, seconds: seconds)
        }
    }

    /// How many clients have a bucket (for tests of the bound).
    var trackedClients: Int { buckets.withLock { $0.count } }

    /// The bucket an address draws on: an IPv4 address itself, an IPv6 address's first 64 bits.
    /// Two kinds of IPv6 address are not a subscriber's network: a NAT64 address (`64:ff9b::/96`)
    /// stands for the IPv4 client it embeds, and link-local ones (`fe80::/10`, any LAN's) and the
    /// IPv4-compatible `::/96` count whole.
    static func client(of address: String) -> String {
        // IPv4 (the common case) needs no parse; the HTTP server already writes mapped ones as IPv4.
        guard address.utf8.contains(UInt8(ascii: ":")), case .v6(let bytes)? = IPAddress(address) else { return address }
        if bytes.prefix(12).elementsEqual([0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]) {
            return "\(bytes[12]).\(bytes[13]).\(bytes[14]).\(bytes[15])"
        }
        if (bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80) || bytes.prefix(12).allSatisfy({ $0 == 0 }) {
            return IPAddress.v6(bytes).description
        }
        return IPAddress.v6(Array(bytes.prefix(8)) + Array(repeating: 0, count: 8)).description + "/64"
    }

    private func prune(_ table: inout [String: Bucket], now: Double) {
        var rest = table.compactMap { entry -> (key: String, bucket: Bucket, tokens: Double)? in
            let tokens = min(burst, entry.value.tokens + (now - entry.value.updated) * perSecond)
            return tokens < burst ? (entry.key, entry.value, tokens) : nil
        }
        if rest.count > maxClients / 2 {
            rest.sort { $0.tokens < $1.tokens }
            rest.removeLast(rest.count - maxClients / 2)
        }
        table = Dictionary(uniqueKeysWithValues: rest.lazy.map { ($0.key, $0.bucket) })
    }
}

/// A client over its rate: what it sent too fast, the configured rate, and the whole seconds until
/// its next request would be admitted.
struct RateLimited: Error, Sendable {
    var what: Traffic
    var perSecond: Double
    var seconds: Int

    /// What a bucket counts.
    enum Traffic: Sendable {
        /// Submissions, and asks for old form versions (which cost a compile).
        case submissions
        /// `/validate` calls.
        case validations
    }
}
