import Foundation

/// What becomes of a delivery after an attempt.
public enum DeliveryOutcome: Sendable, Hashable {
    /// The receiver answered 2xx.
    case succeeded
    /// Try again at the given time.
    case retry(at: Date)
    /// The last attempt failed; only a manual redelivery sends it again.
    case dead
    /// The receiver answered 410 Gone: the endpoint is disabled and the delivery is not retried.
    case endpointDisabled

    /// A stable name for metrics and logs: `succeeded`, `retry`, `dead`, `endpoint_disabled`.
    public var name: String {
        switch self {
        case .succeeded: "succeeded"
        case .retry: "retry"
        case .dead: "dead"
        case .endpointDisabled: "endpoint_disabled"
        }
    }
}
