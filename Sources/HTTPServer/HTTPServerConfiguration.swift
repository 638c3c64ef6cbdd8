/// Where the server listens and the limits it enforces; every field has a production default.
public struct HTTPServerConfiguration: Sendable {
    /// The address to bind: an IPv4 or IPv6 literal or a host name (`::` binds every IPv6 and IPv4 address).
    public var host = "127.0.0.1"
    /// The port; 0 picks a free one, which `HTTPServer.start()` returns.
    public var port = 8080
    /// Largest request body accepted; larger is refused with 413 without reading it.
    public var maxBodyBytes = 1024 * 1024
    /// Memory that the buffers of bodies still arriving (received in more than one read) may hold,
    /// over all connections; one client address may hold a sixteenth of it (at least twice
    /// `maxBodyBytes`). Buffers grow with their bodies, never past the declared length or
    /// `maxBodyBytes`. A body that would go past either share is
    /// refused with 503 and `Retry-After`, so many slow uploads cannot take the memory
    /// `maxConnections` × `maxBodyBytes` allows. Raised to twice `maxBodyBytes` if lower.
    public var maxPendingBodyBytes = 256 * 1024 * 1024
    /// Memory that responses not yet taken by their clients may hold, over all connections. Past it,
    /// connections whose clients read less than 16 KiB in the last second (judged by the server's
    /// queue and the kernel's send queue) are closed, largest first over all loops, so clients that
    /// ask for large answers and never read them cannot take the server's memory.
    public var maxQueuedOutputBytes = 256 * 1024 * 1024
    /// Largest header section (all fields, without the request line); larger gets 431.
    public var maxHeaderBytes = 64 * 1024
    /// Most header fields in one request; more gets 431.
    public var maxHeaderCount = 100
    /// Longest request target; longer gets 414.
    public var maxURIBytes = 8 * 1024
    /// Time from a request's first byte to the end of its head; past it the client gets 408.
    public var headerTimeout: Duration = .seconds(10)
    /// Time from the end of a head to the end of its body; past it the client gets 408.
    public var bodyTimeout: Duration = .seconds(30)
    /// How long a keep-alive connection may sit between requests before it is closed.
    public var idleTimeout: Duration = .seconds(60)
    /// How long a response may wait for the client to read before the connection is dropped.
    public var writeTimeout: Duration = .seconds(30)
    /// Open connections beyond this are closed as soon as they are accepted. Lowered at start to what
    /// the process's open-file limit leaves beside `reservedDescriptors`.
    public var maxConnections = 10_000
    /// Descriptors kept free for everything but client connections: the database, outgoing requests,
    /// and libdispatch, which opens `/proc` files to watch its threads and stops the process when it
    /// cannot.
    public var reservedDescriptors = 64
    /// Open connections one client address may have; more are closed as soon as they are accepted,
    /// so one address cannot take every slot (generous, as many clients may share an address behind NAT).
    public var maxConnectionsPerAddress = 1_024
    /// How long a graceful shutdown waits for in-flight requests before closing everything.
    public var shutdownDeadline: Duration = .seconds(10)
    /// Event loop threads; 0 means one per CPU core.
    public var eventLoops = 0
    /// Whether handlers start on the event loop that read their request (fastest: no thread hop until the
    /// handler's first suspension). Set false when handlers do blocking work (synchronous file or database
    /// calls, heavy CPU) so they run on Swift's global executor and cannot stall other connections.
    public var handlersOnEventLoop = true
    /// Fields added to every response, the server's own refusals included (like nginx's
    /// `add_header … always`); encoded once at start, so they cost nothing per request. Handlers should
    /// not set the same names. Fields with CR, LF or NUL are dropped.
    public var headers: [(String, String)] = []
    /// When set, the server's own problems (unknown path 404, 405, malformed request 400, 413, 414,
    /// 431, 500, ...) get `type` = this base + the status's reason as a slug (`not-found`,
    /// `method-not-allowed`, `content-too-large`), so an API's errors share one namespace; nil keeps
    /// RFC 9457's `about:blank`.
    public var problemTypeBase: String?
    /// Writes the body of the server's own problems; Foundation's encoder unless the application
    /// gives its own JSON writer (so that every problem it serves is written alike).
    public var problemEncoder: @Sendable (ProblemDetails) -> [UInt8] = ProblemDetails.encodedByFoundation
    /// The listen(2) backlog.
    public var backlog: Int32 = 1024
    /// Connection tasks each loop keeps between requests (6–13 KiB each); internal so tests can
    /// reach the cap with a few connections.
    var maxParkedTasksPerLoop = 256

    /// The defaults.
    public init() {}

    var parserLimits: ParserLimits {
        ParserLimits(maxURIBytes: maxURIBytes, maxHeaderBytes: maxHeaderBytes, maxHeaderCount: maxHeaderCount, maxBodyBytes: maxBodyBytes)
    }
}

extension Duration {
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) &* 1_000_000_000 &+ UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
