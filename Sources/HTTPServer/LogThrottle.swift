/// Says a repeated event at most once per interval, with how many times it happened since it was
/// last said: the first at once, the rest folded into the next line due. A flood of refused
/// connections, or accept retried every sweep without descriptors, writes a line an interval.
struct LogThrottle {
    /// Nanoseconds between lines.
    let interval: UInt64
    private var nextLine: UInt64 = 0
    private var unsaid = 0

    init(interval: UInt64) {
        self.interval = interval
    }

    /// Counts one occurrence at `now` (monotonic nanoseconds); when a line is due, returns how many
    /// occurrences it reports, else nil.
    mutating func record(at now: UInt64) -> Int? {
        unsaid += 1
        guard now >= nextLine else { return nil }
        nextLine = now + interval
        defer { unsaid = 0 }
        return unsaid
    }
}
