import Foundation
import Glibc
import Synchronization

/// What keeps uploads from taking a node: uploads in progress per client and in all, a byte rate per
/// client, and a floor of free space on the disk that receives them. Counts are per node, like the
/// submission rate limits (docs/scaling.md).
final class UploadLimits: Sendable {
    struct Settings: Sendable {
        var maxInProgress = 256
        var maxInProgressPerClient = 8
        var bytesPerSecondPerClient = 32 << 20
        var minFreeBytes: Int64 = 256 << 20
    }

    private struct Rate { var tokens: Double; var updated: Double }

    let settings: Settings
    /// The directories whose file systems must keep `minFreeBytes` free: where tus uploads are
    /// staged, and where files are stored when that is a directory.
    private let volumes: [String]
    private let inProgress = Mutex<(total: Int, byClient: [String: Int])>((0, [:]))
    private let rates = Mutex<[String: Rate]>([:])

    init(settings: Settings, volumes: [String]) {
        self.settings = settings
        self.volumes = volumes
    }

    /// One upload in progress, counted until ``end()``.
    final class Slot: Sendable {
        private let limits: UploadLimits
        private let client: String
        private let ended = Atomic(false)

        fileprivate init(limits: UploadLimits, client: String) {
            self.limits = limits
            self.client = client
        }

        func end() {
            if !ended.exchange(true, ordering: .relaxed) { limits.release(client) }
        }

        deinit { end() }
    }

    /// Counts an upload in progress for `address`, or throws 429 when the client or the node has
    /// as many as it may.
    func begin(_ address: String) throws -> Slot {
        let client = RateLimiter.client(of: address)
        let admitted = inProgress.withLock { counts -> Bool in
            let mine = counts.byClient[client, default: 0]
            guard counts.total < settings.maxInProgress, mine < settings.maxInProgressPerClient else { return false }
            counts.total += 1
            counts.byClient[client] = mine + 1
            return true
        }
        guard admitted else {
            throw APIProblem(.tooManyUploads,
                             "Too many uploads are in progress; finish one (or wait a moment) and try again.",
                             headers: [("Retry-After", "5")])
        }
        return Slot(limits: self, client: client)
    }

    private func release(_ client: String) {
        inProgress.withLock { counts in
            counts.total -= 1
            let left = counts.byClient[client, default: 1] - 1
            counts.byClient[client] = left > 0 ? left : nil
        }
    }

    /// Waits until `address` may send `bytes` more at its byte rate. The wait holds the request's
    /// body stream, so the client is read more slowly rather than refused.
    func pace(_ address: String, bytes: Int) async throws {
        let rate = Double(settings.bytesPerSecondPerClient)
        let client = RateLimiter.client(of: address)
        let now = ProcessInfo.processInfo.systemUptime
        let wait = rates.withLock { table -> Double in
            if table.count > 100_000 { table = table.filter { now - $0.value.updated < 60 } }
            var bucket = table[client] ?? Rate(tokens: rate, updated: now)
            // One second's worth at most in hand, so a pause does not buy a burst.
            bucket.tokens = min(rate, bucket.tokens + (now - bucket.updated) * rate) - Double(bytes)
            bucket.updated = now
            table[client] = bucket
            return bucket.tokens < 0 ? -bucket.tokens / rate : 0
        }
        if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
    }

    /// Throws 507 when a receiving disk has less than `minFreeBytes` free (or `needed` would take it there).
    func checkFreeSpace(needed: Int = 0) throws {
        for volume in volumes {
            var stats = statvfs()
            guard statvfs(volume, &stats) == 0 else { continue }
            let free = Int64(stats.f_bavail) * Int64(stats.f_frsize)
            guard free - Int64(needed) < settings.minFreeBytes else { continue }
            throw APIProblem(.insufficientStorage,
                             "The server is low on disk space and cannot take this upload now; try again later.",
                             headers: [("Retry-After", "60")])
        }
    }
}
