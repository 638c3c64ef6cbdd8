/// A failure to start the server.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure; stable, so callers can match it (its raw value leads the description).
    public enum Code: String, Sendable {
        /// The configured host did not resolve to an address.
        case resolveFailed = "resolve-failed"
        /// The listening socket could not be created.
        case socketFailed = "socket-failed"
        /// The address could not be bound (in use, or not this machine's).
        case bindFailed = "bind-failed"
        /// The bound socket could not listen.
        case listenFailed = "listen-failed"
        /// An event loop's epoll instance or eventfd could not be created.
        case eventLoop = "event-loop"
        /// `start()` was called after `shutdown()`.
        case stopped
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, for people.
    public var message: String

    public var description: String { "\(code.rawValue): \(message)" }
}
