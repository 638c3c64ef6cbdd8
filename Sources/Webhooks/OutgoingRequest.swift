/// An HTTP POST for `CurlClient` to send.
public struct OutgoingRequest: Sendable {
    /// The destination URL.
    public var url: String
    /// Request headers, in order.
    public var headers: [(name: String, value: String)]
    /// The request body.
    public var body: [UInt8]

    /// Creates a POST of `body` to `url` with `headers`.
    public init(url: String, headers: [(name: String, value: String)] = [], body: [UInt8]) {
        self.url = url
        self.headers = headers
        self.body = body
    }
}
