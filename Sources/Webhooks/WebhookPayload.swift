import Foundation

/// Builds webhook bodies: `{"type": ..., "timestamp": "<RFC 3339>", "data": <JSON>}`.
public enum WebhookPayload {
    /// The event type sent for an accepted submission.
    public static let submissionAccepted = "submission.accepted"

    /// Wraps already-encoded JSON `data` (the submission's 201 body) without re-encoding it;
    /// `type` is a plain event name and `time` an RFC 3339 time; neither is escaped.
    public static func envelope(type: String = submissionAccepted, time: String, data: some Collection<UInt8>) -> [UInt8] {
        // One buffer of the final size, no interpolated string: this runs for every accepted submission.
        var body: [UInt8] = []
        body.reserveCapacity(35 + type.utf8.count + time.utf8.count + data.count)
        body.append(contentsOf: #"{"type":""#.utf8)
        body.append(contentsOf: type.utf8)
        body.append(contentsOf: #"","timestamp":""#.utf8)
        body.append(contentsOf: time.utf8)
        body.append(contentsOf: #"","data":"#.utf8)
        body.append(contentsOf: data)
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// The same, formatting `timestamp` to whole seconds.
    public static func envelope(type: String = submissionAccepted, timestamp: Date, data: some Collection<UInt8>) -> [UInt8] {
        envelope(type: type, time: timestamp.formatted(.iso8601), data: data)
    }
}
