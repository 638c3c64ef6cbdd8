import Logging

/// What travels with a request from the server through the router and its middleware to the
/// handler: the request's logger, the route that matched, and whatever the application adds (the
/// caller's identity on admin routes, say).
///
/// The server makes one per request from a ``CoreRequestContext``; an application declares its own
/// type with the fields it needs and gives the router that type (`Router<AppContext>`).
public protocol RequestContext: Sendable {
    /// Made by the server for each request.
    init(core: CoreRequestContext)
    /// The fields every context has; the router sets ``CoreRequestContext/routePattern`` in it.
    var core: CoreRequestContext { get set }
}

extension RequestContext {
    /// The request's logger, with its `request_id` in the metadata.
    public var logger: Logger { core.logger }
    /// The pattern of the route that matched (`/v1/forms/{id}`), for logs and metrics; nil until a
    /// route matched, and for paths no route serves.
    public var routePattern: String? { core.routePattern }
    /// The request id (the client's `X-Request-Id`, or one the server made).
    public var requestID: String { core.requestID }
}

/// The part of every request context the server fills in.
public struct CoreRequestContext: Sendable {
    private let serverLogger: Logger
    /// The request id (the client's `X-Request-Id`, or one the server made).
    public let requestID: String
    /// The pattern of the route that answers (`/v1/forms/{id}`); set by the router, or by whatever
    /// answers instead of one (static files, a preflight answer). One value per route keeps metric
    /// label sets bounded, which raw paths would not.
    public var routePattern: String?

    /// A context for a request with this id, logging through `logger`.
    public init(requestID: String, logger: Logger) {
        serverLogger = logger
        self.requestID = requestID
    }

    /// The server's logger with the request id in its metadata; made when asked for, so a request
    /// that logs nothing pays nothing for it.
    public var logger: Logger {
        var logger = serverLogger
        logger[metadataKey: "request_id"] = .string(requestID)
        return logger
    }
}

/// A context with nothing beyond the core fields, for servers that need no more (tests, benchmarks).
public struct BasicRequestContext: RequestContext {
    public var core: CoreRequestContext

    public init(core: CoreRequestContext) {
        self.core = core
    }
}
