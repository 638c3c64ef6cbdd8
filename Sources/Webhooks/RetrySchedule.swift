import Foundation

/// When failed deliveries are tried again, and when they are given up.
///
/// `delays[n]` is the wait after failed attempt `n + 1`, so a delivery gets `delays.count + 1` attempts.
/// Each wait is spread by ±`jitter` (a fraction) so that failures of one moment do not retry in lockstep.
public struct RetrySchedule: Sendable, Hashable {
    /// The waits after each failed attempt.
    public var delays: [Duration]
    /// The spread of each wait, as a fraction of it (0.1 is ±10 %).
    public var jitter: Double

    /// Creates a schedule; the defaults are Formhouse's: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, ±10 %.
    public init(delays: [Duration] = RetrySchedule.standardDelays, jitter: Double = 0.1) {
        precondition(!delays.isEmpty, "a retry schedule needs at least one delay")
        self.delays = delays
        self.jitter = jitter
    }

    /// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: eight attempts over about 28 hours.
    public static let standardDelays: [Duration] = [
        .seconds(5), .seconds(300), .seconds(1800), .seconds(7200), .seconds(18000), .seconds(36000), .seconds(36000),
    ]

    /// The default schedule.
    public static let standard = RetrySchedule()

    /// How many attempts a delivery gets in all.
    public var maxAttempts: Int { delays.count + 1 }

    /// Decides what follows attempt number `attempt` (1-based) that ended with `result` at `now`.
    ///
    /// 2xx succeeds; 410 disables the endpoint; anything else is retried until the schedule is
    /// exhausted. A `Retry-After` on 429 or 503 (seconds or an HTTP date) replaces the scheduled
    /// wait, kept between that wait and the schedule's longest.
    public func decide(attempt: Int, result: TransferResult, now: Date = Date()) -> DeliveryOutcome {
        var generator = SystemRandomNumberGenerator()
        return decide(attempt: attempt, result: result, now: now, using: &generator)
    }

    /// `decide(attempt:result:now:)` with a given random source for the jitter.
    public func decide(attempt: Int, result: TransferResult, now: Date, using generator: inout some RandomNumberGenerator) -> DeliveryOutcome {
        if let status = result.status {
            if (200..<300).contains(status) { return .succeeded }
            if status == 410 { return .endpointDisabled }
        }
        guard attempt >= 1, attempt < maxAttempts else { return .dead }
        let scheduled = Self.seconds(delays[attempt - 1])
        if let status = result.status, status == 429 || status == 503,
           let header = result.retryAfter, let asked = Self.retryAfterSeconds(header, now: now) {
            let longest = Self.seconds(delays.max()!)
            return .retry(at: now.addingTimeInterval(min(max(asked, scheduled), longest)))
        }
        let spread = jitter > 0 ? Double.random(in: -jitter...jitter, using: &generator) : 0
        return .retry(at: now.addingTimeInterval(scheduled * (1 + spread)))
    }

    /// Reads a `Retry-After` value: delay seconds, or an HTTP date (IMF-fixdate) turned into seconds from `now`.
    public static func retryAfterSeconds(_ value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed) { return seconds >= 0 ? TimeInterval(seconds) : nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
