/// How a route takes its request body.
public enum BodyMode: Sendable, Equatable {
    /// Read whole before the handler runs, up to the server's `maxBodyBytes` (``Request/body``).
    case buffered
    /// Handed to the handler as it arrives (``Request/bodyStream``), up to `maxBytes`, so a large
    /// upload never sits whole in memory. The client is read only as fast as the handler takes the
    /// parts: a connection holds at most ``RequestBody/highWater`` bytes of it.
    case streamed(maxBytes: Int)
}
