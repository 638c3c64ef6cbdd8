import Foundation

/// Dates are stored as integer milliseconds since 1970-01-01T00:00:00Z. Public because answers built
/// from a stored row (a replayed answer) must cut time exactly as the store does.
extension Date {
    public var storedMilliseconds: Int64 {
        Int64((timeIntervalSince1970 * 1000).rounded(.down))
    }

    public init(storedMilliseconds: Int64) {
        self.init(timeIntervalSince1970: TimeInterval(storedMilliseconds) / 1000)
    }
}
