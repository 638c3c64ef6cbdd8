import Foundation

/// One attempt at a delivery, as it is recorded for the admin.
public struct DeliveryAttempt: Sendable, Hashable {
    /// The attempt's number, from 1.
    public var number: Int
    /// When the request was started.
    public var startedAt: Date
    /// The response status; nil when no response arrived.
    public var status: Int?
    /// How long the attempt took.
    public var duration: Duration
    /// Why no response arrived (code and message); nil when one did.
    public var error: TransferError?
    /// The start of the response body, bounded.
    public var responseExcerpt: String

    /// Creates an attempt record.
    public init(number: Int, startedAt: Date, status: Int?, duration: Duration, error: TransferError?, responseExcerpt: String) {
        self.number = number
        self.startedAt = startedAt
        self.status = status
        self.duration = duration
        self.error = error
        self.responseExcerpt = responseExcerpt
    }

    /// The duration in whole milliseconds, as stored.
    public var milliseconds: Int { duration.wholeMilliseconds }
}
