/// An HTTP request as a handler sees it: head, body (whole, or arriving), route parameters and connection facts.
public struct Request: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The raw path without the query, as sent (not percent-decoded).
    public var path: String
    /// The decoded query parameters.
    public var query: QueryParameters
    /// The header fields in the order sent.
    public var headers: HTTPHeaders
    /// The whole body (at most the configured limit); empty on routes that stream their body.
    public var body: [UInt8]
    /// The body as it arrives, on routes registered with ``BodyMode/streamed(maxBytes:)``; nil otherwise.
    public var bodyStream: RequestBody?
    /// Route parameters, percent-decoded, filled in by `Router`.
    public var parameters: Parameters
    /// The peer's IP address.
    public var remoteAddress: String
    /// The `X-Request-Id` the client sent, or one generated for this request.
    public var requestID: String
    /// The HTTP minor version (1 for HTTP/1.1, 0 for HTTP/1.0).
    public var minorVersion: Int

    /// A request built by hand, for tests and in-process calls.
    public init(
        method: HTTPMethod, path: String, query: QueryParameters = .init(), headers: HTTPHeaders = .init(),
        body: [UInt8] = [], bodyStream: RequestBody? = nil, parameters: Parameters = .init(),
        remoteAddress: String = "127.0.0.1", requestID: String = "local", minorVersion: Int = 1
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.bodyStream = bodyStream
        self.parameters = parameters
        self.remoteAddress = remoteAddress
        self.requestID = requestID
        self.minorVersion = minorVersion
    }
}

/// Route parameters by name (`{id}` in the pattern), percent-decoded.
public struct Parameters: Sendable, Sequence {
    private var pairs: [(name: String, value: String)]

    /// No parameters.
    public init() {
        pairs = []
    }

    /// Parameters from `(name, value)` pairs.
    public init(_ pairs: [(String, String)]) {
        self.pairs = pairs.map { (name: $0.0, value: $0.1) }
    }

    /// Parameters from pairs already labelled, without the copy the public initializer makes.
    @usableFromInline
    init(labelled pairs: [(name: String, value: String)]) {
        self.pairs = pairs
    }

    /// The value of the named parameter, or nil.
    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// The value of a parameter the route's pattern captures. Throws ``MissingRouteParameter`` when
    /// the pattern has no parameter of that name: a mistake in the route table, which the server
    /// logs and answers with a 500 rather than serving the handler an empty id.
    public func require(_ name: String) throws -> String {
        guard let value = self[name] else { throw MissingRouteParameter(name: name) }
        return value
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        pairs.makeIterator()
    }
}

/// A handler asked for a route parameter its pattern does not capture.
public struct MissingRouteParameter: Error {
    /// The parameter asked for.
    public var name: String
}
