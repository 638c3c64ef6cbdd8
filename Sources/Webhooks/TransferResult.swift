/// What came of one request: a response status, or an error when no response arrived.
public struct TransferResult: Sendable {
    /// The HTTP status of the response; nil when there was none (timeout, refused connection...).
    public var status: Int?
    /// Why no usable response arrived; nil when one did.
    public var error: TransferError?
    /// Time from the start of the transfer to its end.
    public var duration: Duration
    /// The first bytes of the response body (at most the client's excerpt limit).
    public var body: [UInt8]
    /// True when the response body was longer than what `body` holds.
    public var bodyTruncated: Bool
    /// The response's `Retry-After` header, as sent.
    public var retryAfter: String?

    /// Creates a result; tests and queues build these directly.
    public init(status: Int?, error: TransferError? = nil, duration: Duration = .zero, body: [UInt8] = [], bodyTruncated: Bool = false, retryAfter: String? = nil) {
        self.status = status
        self.error = error
        self.duration = duration
        self.body = body
        self.bodyTruncated = bodyTruncated
        self.retryAfter = retryAfter
    }

    /// The body excerpt as text, invalid UTF-8 repaired.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
