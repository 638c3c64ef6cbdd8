/// Why a streamed body ended before its last byte.
public enum RequestBodyError: Error, Equatable, HTTPResponseError {
    /// The client closed the connection mid-body.
    case disconnected
    /// The client sent nothing for the server's body timeout.
    case timedOut
    /// The body's framing was malformed, or it grew past its route's limit: the status and why.
    case refused(status: Int, reason: String)

    public func response(context: CoreRequestContext) -> Response {
        switch self {
        case .disconnected:
            // Nobody reads it; the status is for the access log.
            return .standardProblem(status: 400, detail: "The client closed the connection before the body ended.")
        case .timedOut:
            return .standardProblem(status: 408, detail: "The request body was not received in time.")
        case .refused(let status, let reason):
            return .standardProblem(status: status, detail: "The request body was refused: \(reason).")
        }
    }
}

/// A request body that arrives while its handler runs, in parts, in order.
///
/// Its state belongs to the connection's event loop: ``next()`` hops there, so the connection feeds
/// and the handler takes parts without a lock. Once the handler has answered, whatever of the body
/// it did not read is dropped and the connection closes after the answer.
public final class RequestBody: @unchecked Sendable {
    /// Bytes a connection buffers ahead of its handler before it stops reading the client.
    public static let highWater = 256 * 1024

    /// The declared `Content-Length`; nil when the body is chunked.
    public let expectedLength: Int?
    private let loop: EventLoop?
    private weak var connection: Connection?
    private var parts: [[UInt8]] = []
    private var partIndex = 0
    private(set) var bufferedBytes = 0
    private(set) var isEnded = false
    private var failure: RequestBodyError?
    private var waiter: CheckedContinuation<[UInt8]?, any Error>?
    /// Bytes the handler has taken so far.
    public private(set) var receivedBytes = 0
    /// The client sent `Expect: 100-continue` and has not been told to go on: it is, when the
    /// handler first asks for the body, so a handler that refuses at once is spared the body.
    var continuePending = false

    /// A body fed by a connection.
    init(expectedLength: Int?, loop: EventLoop, connection: Connection) {
        self.expectedLength = expectedLength
        self.loop = loop
        self.connection = connection
    }

    /// A body that is all there already: for requests built by hand (tests, in-process calls).
    public init(bytes: [UInt8]) {
        expectedLength = bytes.count
        loop = nil
        if !bytes.isEmpty {
            parts = [bytes]
            bufferedBytes = bytes.count
        }
        isEnded = true
    }

    /// The next part of the body, or nil at its end. Throws ``RequestBodyError`` when the body cannot
    /// end (the client left, was too slow, or sent a malformed or oversized body).
    public func next() async throws -> [UInt8]? {
        if let loop, !loop.inLoop { await loop.hop() }
        if continuePending {
            continuePending = false
            connection?.sendContinue()
        }
        if partIndex < parts.count {
            let part = parts[partIndex]
            parts[partIndex] = []
            partIndex += 1
            if partIndex == parts.count {
                parts.removeAll(keepingCapacity: true)
                partIndex = 0
            }
            let wasFull = bufferedBytes >= Self.highWater
            bufferedBytes -= part.count
            receivedBytes += part.count
            if wasFull, bufferedBytes < Self.highWater { connection?.bodyDrained() }
            return part
        }
        if let failure { throw failure }
        if isEnded { return nil }
        let part = try await withCheckedThrowingContinuation { waiter = $0 }
        if let part { receivedBytes += part.count }
        return part
    }

    /// Whether the connection should read more of the client now.
    var wantsInput: Bool { !isEnded && failure == nil && bufferedBytes < Self.highWater }

    /// Whether the handler waits for bytes from the client (so the client, not the server, is late).
    var awaitsClient: Bool { wantsInput && !continuePending }

    func deliver(_ part: [UInt8]) {
        guard !part.isEmpty, failure == nil else { return }
        if let waiter = waiter.take() {
            waiter.resume(returning: part)
        } else {
            parts.append(part)
            bufferedBytes += part.count
        }
    }

    func end() {
        isEnded = true
        waiter.take()?.resume(returning: nil)
    }

    func fail(_ error: RequestBodyError) {
        guard !isEnded, failure == nil else { return }
        failure = error
        parts = []
        partIndex = 0
        bufferedBytes = 0
        waiter.take()?.resume(throwing: error)
    }
}
