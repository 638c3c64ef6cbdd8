/// The life of one HTTP/1.1 connection as a value: `Connection` reports what happened (bytes read, a
/// request decoded, its response written, the output flushed, a timeout, shutdown) and performs the
/// action each event returns; the machine decides, the connection does the system calls.
///
/// Every transition sets the deadline of the state it enters, so a connection is never without a
/// bound on how long it may wait for its client, except while its own handler runs.
struct ConnectionStateMachine: Sendable {
    /// How long each phase may wait for the client, in nanoseconds.
    struct Timeouts: Sendable {
        /// From the first byte of a head (or from accepting) to the end of the head.
        var header: UInt64
        /// From the end of a head to the end of its body.
        var body: UInt64
        /// Between requests on a kept-alive connection.
        var idle: UInt64
        /// For queued output to move.
        var write: UInt64
        /// For a closing connection's client to stop sending, once its last answer is out.
        static let linger: UInt64 = 2_000_000_000
    }

    enum State: Equatable, Sendable {
        /// Waiting for the first byte of a request (accepted, or between requests).
        case idle
        /// Part of a request has arrived; `closeAfterAnswer` once the server began shutting down.
        case reading(closeAfterAnswer: Bool)
        /// A handler is answering; `keepAlive` while its answer may leave the connection open,
        /// `awaitingDrain` while a streamed body waits for the client to read.
        case processing(keepAlive: Bool, awaitingDrain: Bool)
        /// The answer is out of the handler but not yet all taken by the client.
        case writing(then: AfterFlush)
        /// The final answer is out; what the client still sends is read and dropped until it closes
        /// (or the linger times out, or `maxLingerBytes` came), so closing does not reset the
        /// connection under an answer it has not read.
        case lingering(discarded: Int)
        case closed
    }

    /// What a connection in `writing` does once its output is all taken.
    enum AfterFlush: Equatable, Sendable {
        /// Reads the next request.
        case readNext
        /// Closes, or lingers if the client has sent more.
        case close
        /// Lingers: the answer was a refusal, and the client may still be sending what was refused.
        case linger
    }

    /// Lingering ends once the client has sent this much more.
    static let maxLingerBytes = 1024 * 1024

    private(set) var state = State.idle
    /// When the current state times out (monotonic nanoseconds); 0 means never.
    private(set) var deadline: UInt64
    let timeouts: Timeouts

    /// A connection just accepted: its first request's head is due within the header timeout.
    init(timeouts: Timeouts, now: UInt64) {
        self.timeouts = timeouts
        deadline = now + timeouts.header
    }

    // MARK: What the connection asks

    var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// Whether the socket is read: for requests, or to drop what a lingering client still sends.
    var acceptsInput: Bool {
        switch state {
        case .idle, .reading, .lingering: true
        case .processing, .writing, .closed: false
        }
    }

    /// Whether bytes read are decoded as requests now.
    var expectsRequest: Bool {
        switch state {
        case .idle, .reading: true
        case .processing, .writing, .lingering, .closed: false
        }
    }

    /// Whether input read but not yet decoded still matters: not once the connection refused a
    /// request or closed.
    var keepsInput: Bool {
        switch state {
        case .writing(.linger), .lingering, .closed: false
        case .idle, .reading, .processing, .writing: true
        }
    }

    /// Whether a handler's answer may still be written.
    var isProcessing: Bool {
        if case .processing = state { return true }
        return false
    }

    /// Whether the answer being written keeps the connection open for another request.
    var keepsAlive: Bool {
        if case .processing(let keepAlive, _) = state { return keepAlive }
        return false
    }

    // MARK: Reading

    enum ReadAction: Equatable {
        /// Decode the bytes.
        case decode
        /// Drop them: the connection is lingering.
        case discard
        /// The lingering client sent too much: the machine closed; release the connection.
        case close
    }

    /// `count` bytes arrived: they are decoded, or dropped by a lingering connection, which closes
    /// once the client has sent `maxLingerBytes` more.
    mutating func bytesRead(_ count: Int) -> ReadAction {
        guard case .lingering(let discarded) = state else { return .decode }
        guard discarded + count <= Self.maxLingerBytes else {
            close()
            return .close
        }
        state = .lingering(discarded: discarded + count)
        return .discard
    }

    /// The first bytes of a request have arrived without completing its head.
    mutating func headStarted(now: UInt64) {
        guard case .idle = state else { return }
        state = .reading(closeAfterAnswer: false)
        deadline = now + timeouts.header
    }

    /// Whether a client that sent `Expect: 100-continue` waits for it, and whether its body fits.
    enum Expectation: Equatable {
        case none
        case continueWithRoom
        case continueWithoutRoom
    }

    enum HeadAction: Equatable {
        /// Read the body.
        case readBody
        /// Send `100 Continue`, then read the body.
        case sendContinue
        /// The body would not fit the pending-body budget: the machine refuses; answer 503.
        case refuseBody
    }

    /// A head whose body is still to come: the body is due within the body timeout.
    mutating func headReceived(expectation: Expectation, now: UInt64) -> HeadAction {
        let closeAfterAnswer = if case .reading(true) = state { true } else { false }
        state = .reading(closeAfterAnswer: closeAfterAnswer)
        deadline = now + timeouts.body
        switch expectation {
        case .none:
            return .readBody
        case .continueWithRoom:
            return .sendContinue
        case .continueWithoutRoom:
            refuse(now: now)
            return .refuseBody
        }
    }

    /// A whole request: its handler runs without a deadline. Its answer keeps the connection open
    /// if the client asked to (`keepAlive`) and the server has not begun shutting down.
    mutating func requestReceived(keepAlive: Bool) {
        let keepAlive = if case .reading(true) = state { false } else { keepAlive }
        state = .processing(keepAlive: keepAlive, awaitingDrain: false)
        deadline = 0
    }

    /// The request being read is refused (malformed, over a budget, too slow): the refusal is the
    /// connection's last answer, and it lingers once the refusal is out.
    mutating func refuse(now: UInt64) {
        guard !isClosed else { return }
        state = .writing(then: .linger)
        deadline = now + timeouts.write
    }

    // MARK: Answering

    /// The answer's body ends with the connection (a stream to an HTTP/1.0 client, which has no chunking).
    mutating func bodyEndsConnection() {
        if case .processing(_, let awaitingDrain) = state {
            state = .processing(keepAlive: false, awaitingDrain: awaitingDrain)
        }
    }

    enum ResponseAction: Equatable {
        /// The connection no longer answers (it closed under the handler).
        case none
        /// Output is still queued: wait for the client to take it.
        case awaitFlush
        /// Close now, or linger if the client has sent more (the connection looks).
        case closeAfterAnswer
        /// Decode what is buffered and read the next request.
        case resumeReading
    }

    /// The handler's answer is written or queued whole.
    mutating func responseWritten(outputPending: Bool, now: UInt64) -> ResponseAction {
        guard case .processing(let keepAlive, _) = state else { return .none }
        if outputPending {
            state = .writing(then: keepAlive ? .readNext : .close)
            deadline = now + timeouts.write
            return .awaitFlush
        }
        if !keepAlive { return .closeAfterAnswer }
        becomeIdle(now: now)
        return .resumeReading
    }

    /// A streamed body queued past its high-water mark and waits for the client to read.
    mutating func streamAwaitsDrain(now: UInt64) {
        guard case .processing(let keepAlive, _) = state else { return }
        state = .processing(keepAlive: keepAlive, awaitingDrain: true)
        deadline = now + timeouts.write
    }

    // MARK: Writing

    /// Queued output moved: a client that keeps reading is not timed out.
    mutating func outputProgressed(now: UInt64) {
        switch state {
        case .writing, .processing(_, awaitingDrain: true):
            deadline = now + timeouts.write
        case .idle, .reading, .processing, .lingering, .closed:
            break
        }
    }

    enum FlushAction: Equatable {
        case none
        /// Resume the streamed body waiting for the client.
        case resumeStream
        /// Decode what is buffered and read the next request.
        case resumeReading
        /// Close now, or linger if the client has sent more (the connection looks).
        case closeAfterAnswer
        /// The machine lingers: half-close and read what the client still sends.
        case linger
    }

    /// Everything queued has been taken by the kernel.
    mutating func outputFlushed(now: UInt64) -> FlushAction {
        switch state {
        case .processing(let keepAlive, awaitingDrain: true):
            state = .processing(keepAlive: keepAlive, awaitingDrain: false)
            deadline = 0
            return .resumeStream
        case .writing(.readNext):
            becomeIdle(now: now)
            return .resumeReading
        case .writing(.close):
            return .closeAfterAnswer
        case .writing(.linger):
            linger(now: now)
            return .linger
        case .idle, .reading, .processing, .lingering, .closed:
            return .none
        }
    }

    /// The connection's last answer is out and the client has sent more: read and drop it for a while.
    mutating func linger(now: UInt64) {
        guard !isClosed else { return }
        state = .lingering(discarded: 0)
        deadline = now + Timeouts.linger
    }

    private mutating func becomeIdle(now: UInt64) {
        state = .idle
        deadline = now + timeouts.idle
    }

    // MARK: Ending

    enum TimeoutAction: Equatable {
        case none
        /// The request being read was too slow: the machine refuses; answer 408.
        case refuse
        /// The machine closed; release the connection.
        case close
    }

    /// The deadline passed.
    mutating func timedOut(now: UInt64) -> TimeoutAction {
        switch state {
        case .reading:
            refuse(now: now)
            return .refuse
        case .idle, .writing, .lingering, .processing(_, awaitingDrain: true):
            close()
            return .close
        case .processing, .closed:
            deadline = 0
            return .none
        }
    }

    enum ShutdownAction: Equatable {
        case none
        /// The connection was idle: the machine closed; release the connection.
        case close
    }

    /// The server is shutting down: an idle connection closes now, a busy one after its answer.
    mutating func shutdownBegun() -> ShutdownAction {
        switch state {
        case .idle:
            close()
            return .close
        case .reading:
            state = .reading(closeAfterAnswer: true)
        case .processing(_, let awaitingDrain):
            state = .processing(keepAlive: false, awaitingDrain: awaitingDrain)
        case .writing(.readNext):
            state = .writing(then: .close)
        case .writing, .lingering, .closed:
            break
        }
        return .none
    }

    /// The peer closed, the socket failed, or the server closes the connection; returns false if it
    /// was closed already, so its resources are released once.
    @discardableResult
    mutating func close() -> Bool {
        guard !isClosed else { return false }
        state = .closed
        deadline = 0
        return true
    }
}
