import Glibc

/// The `Date` field every response carries, formatted once a second instead of once a response.
struct DateCache {
    /// `Date: <IMF-fixdate>\r\n` for the second last given to ``update(epochSeconds:)``.
    private(set) var line: [UInt8] = []
    private var second = -1

    /// Formats the line anew when `epochSeconds` is a second it was not formatted for.
    mutating func update(epochSeconds: Int) {
        guard epochSeconds != second else { return }
        second = epochSeconds
        var seconds = epochSeconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        line = Array("Date: ".utf8) + HTTPDate.format(parts) + [13, 10]
    }
}
