import Foundation

/// Builds webhook bodies: `{"type": ..., "timestamp": "<RFC 3339>", "data": <JSON>}`.
public enum WebhookPayload {
    /// The event type sent for an accepted submission.
    public static let submissionAccepted = "submission.accepted"

    /// Wraps already-encoded JSON `data` (the submission's 201 body) without re-encoding it;
    /// `type` is a plain event name and `time` an RFC 3339 time; neither is escaped.
    public static func envelope(type: String = submissionAccepted, time: String, data: some Collection<UInt8>) -> [UInt8] {
        var body = Array(#"{"type":"\#(type)","timestamp":"\#(time)","data":"#.utf8)
        body.reserveCapacity(body.count + data.count + 1)
        body.append(contentsOf: data)
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// The same, formatting `timestamp` to whole seconds.
    public static func envelope(type: String = submissionAccepted, timestamp: Date, data: some Collection<UInt8>) -> [UInt8] {
        envelope(type: type, time: timestamp.formatted(.iso8601), data: data)
    }
}
