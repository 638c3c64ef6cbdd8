import Foundation

/// Dates are stored as integer milliseconds since 1970-01-01T00:00:00Z.
extension Date {
    var storedMilliseconds: Int64 {
        Int64((timeIntervalSince1970 * 1000).rounded(.down))
    }

    init(storedMilliseconds: Int64) {
        self.init(timeIntervalSince1970: TimeInterval(storedMilliseconds) / 1000)
    }
}
