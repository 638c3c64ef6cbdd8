import Logging
import Synchronization

/// What every loop of one server shares: configuration, the responder, the logger, the connection count.
@usableFromInline
final class ServerCore: Sendable {
    /// The responder, with the context it takes made from the core context (see ``Dispatch``).
    let dispatch: Dispatch
    /// The responder's ``Responder/bodyMode(method:path:)``.
    let bodyMode: @Sendable (HTTPMethod, String) -> BodyMode
    let hooks: [any RequestHook]
    let logger: Logger
    let limits: ParserLimits
    let maxConnections: Int
    let maxConnectionsPerAddress: Int
    /// Open connections by client address (only addresses with one open).
    private let connectionsByAddress = Mutex<[String: Int]>([:])
    let timeouts: ConnectionStateMachine.Timeouts
    let handlersOnEventLoop: Bool
    /// Connection tasks one loop keeps suspended between requests. Each keeps 6–13 KiB (its
    /// task-allocator slabs); past the cap an idle connection's task ends and its next request starts one.
    let maxParkedTasks: Int
    /// `HTTPServerConfiguration.headers`, encoded once.
    let fixedHeaders: [UInt8]
    /// `HTTPServerConfiguration.problemTypeBase`.
    let problemTypeBase: String?
    /// `HTTPServerConfiguration.problemEncoder`.
    let problemEncoder: @Sendable (ProblemDetails) -> [UInt8]
    private let openConnections = Atomic<Int>(0)
    let maxPendingBodyBytes: Int
    let maxQueuedOutputBytes: Int
    /// Bytes of responses queued and not yet taken by the kernel, over all connections.
    let queuedOutput = Atomic<Int>(0)
    /// Each loop's largest stalled writer while queued output is over budget.
    private let stalledByLoop = Mutex<[ObjectIdentifier: Int]>([:])
    let maxPendingBodyBytesPerAddress: Int
    /// Bytes held by bodies still arriving, in all and by client address.
    private let pendingBodies = Mutex<(total: Int, byAddress: [String: Int])>((0, [:]))
    /// Connection tasks started and still running (parked ones included); counted once per task,
    /// not per request, so tests can see that tasks are kept and that they end.
    let connectionTasksStarted = Atomic<Int>(0)
    let connectionTasksRunning = Atomic<Int>(0)

    /// Answers a request, leaving what it learned (the route) in the core context.
    @usableFromInline
    typealias Dispatch = @Sendable (Request, inout CoreRequestContext) async throws -> Response

    /// A core answering with `responder`.
    convenience init<R: Responder>(
        configuration: HTTPServerConfiguration, responder: R, hooks: [any RequestHook] = [], logger: Logger
    ) {
        self.init(
            configuration: configuration, dispatch: Self.dispatch(to: responder), bodyMode: { responder.bodyMode(method: $0, path: $1) },
            hooks: hooks, logger: logger)
    }

    /// A closure that makes `R.Context` for each request and hands it to `responder`, written back
    /// into the core context even when the responder throws, so the error's log and metrics name the route.
    @inlinable
    static func dispatch<R: Responder>(to responder: R) -> Dispatch {
        { request, core in
            var context = R.Context(core: core)
            defer { core = context.core }
            return try await responder.respond(to: request, context: &context)
        }
    }

    init(
        configuration: HTTPServerConfiguration, dispatch: @escaping Dispatch,
        bodyMode: @escaping @Sendable (HTTPMethod, String) -> BodyMode = { _, _ in .buffered },
        hooks: [any RequestHook] = [], logger: Logger
    ) {
        self.dispatch = dispatch
        self.bodyMode = bodyMode
        self.hooks = hooks
        self.logger = logger
        limits = configuration.parserLimits
        maxConnections = DescriptorBudget.connections(
            configured: configuration.maxConnections, reserved: configuration.reservedDescriptors, logger: logger)
        maxConnectionsPerAddress = max(1, configuration.maxConnectionsPerAddress)
        // Buffers grow to at most maxBodyBytes (plus malloc's rounding): two bodies' worth always
        // leaves room for one whole body.
        maxPendingBodyBytes = max(configuration.maxPendingBodyBytes, 2 * configuration.maxBodyBytes)
        maxPendingBodyBytesPerAddress = max(2 * configuration.maxBodyBytes, maxPendingBodyBytes / 16)
        maxQueuedOutputBytes = max(0, configuration.maxQueuedOutputBytes)
        timeouts = ConnectionStateMachine.Timeouts(
            header: configuration.headerTimeout.nanoseconds, body: configuration.bodyTimeout.nanoseconds,
            idle: configuration.idleTimeout.nanoseconds, write: configuration.writeTimeout.nanoseconds)
        handlersOnEventLoop = configuration.handlersOnEventLoop
        maxParkedTasks = configuration.maxParkedTasksPerLoop
        problemTypeBase = configuration.problemTypeBase
        problemEncoder = configuration.problemEncoder
        var encoded: [UInt8] = []
        for (name, value) in configuration.headers where !name.isEmpty && Connection.isSafe(name) && Connection.isSafe(value) {
            encoded += Array(name.utf8) + Array(": ".utf8) + Array(value.utf8) + [13, 10]
        }
        fixedHeaders = encoded
    }

    var connectionCount: Int { openConnections.load(ordering: .relaxed) }

    /// Counts a new connection from `address` in, unless the server's or the address's limit is reached.
    func admitConnection(from address: String) -> Bool {
        if openConnections.wrappingAdd(1, ordering: .relaxed).newValue > maxConnections {
            openConnections.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        let admitted = connectionsByAddress.withLock { open in
            let count = open[address, default: 0]
            guard count < maxConnectionsPerAddress else { return false }
            open[address] = count + 1
            return true
        }
        if !admitted { openConnections.wrappingSubtract(1, ordering: .relaxed) }
        return admitted
    }

    func releaseConnection(from address: String) {
        openConnections.wrappingSubtract(1, ordering: .relaxed)
        connectionsByAddress.withLock { open in
            let count = open[address, default: 0] - 1
            open[address] = count > 0 ? count : nil
        }
    }

    /// Takes `bytes` from the budget of bodies still arriving, or returns false when it would take
    /// the total or `address`'s share over. Only bodies that span reads come here, not the hot path.
    func reserveBody(_ bytes: Int, for address: String) -> Bool {
        pendingBodies.withLock { pending in
            guard fits(bytes, for: address, in: pending) else { return false }
            pending.total += bytes
            pending.byAddress[address, default: 0] += bytes
            return true
        }
    }

    /// Whether a body of `bytes` from `address` would fit now (for `100 Continue`).
    func hasPendingBodyRoom(_ bytes: Int, for address: String) -> Bool {
        pendingBodies.withLock { fits(bytes, for: address, in: $0) }
    }

    private func fits(_ bytes: Int, for address: String, in pending: (total: Int, byAddress: [String: Int])) -> Bool {
        pending.total + bytes <= maxPendingBodyBytes && pending.byAddress[address, default: 0] + bytes <= maxPendingBodyBytesPerAddress
    }

    func releaseBody(_ bytes: Int, for address: String) {
        pendingBodies.withLock { pending in
            pending.total -= bytes
            let held = pending.byAddress[address, default: 0] - bytes
            pending.byAddress[address] = held > 0 ? held : nil
        }
    }

    var pendingBodyByteCount: Int { pendingBodies.withLock { $0.total } }

    /// Records `loop`'s largest stalled writer (0 for none) and says whether it is the largest of
    /// all loops', that is whether this loop should close it (ties go to one loop, by identity).
    @discardableResult
    func publishStalled(_ bytes: Int, by loop: ObjectIdentifier) -> Bool {
        stalledByLoop.withLock { table in
            table[loop] = bytes > 0 ? bytes : nil
            return bytes > 0 && table.allSatisfy { other in other.key == loop || other.value < bytes || (other.value == bytes && loop < other.key) }
        }
    }

    /// Runs the hooks and the responder, in one async frame (each frame more is an allocation and an
    /// executor check per request). Returns the answer and the route that gave it, for the access log.
    func respond(to request: Request) async -> (response: Response, route: String?) {
        let start: ContinuousClock.Instant? = hooks.isEmpty ? nil : .now
        var context = CoreRequestContext(requestID: request.requestID, logger: logger)
        var early: Response?
        for index in hooks.indices {
            early = hooks[index].willRespond(to: request, context: &context)
            if early != nil { break }
        }
        var response: Response
        if let early {
            response = early
        } else {
            do {
                response = try await dispatch(request, &context)
            } catch {
                response = problem(for: error, request: request, context: context)
            }
        }
        if let detail = response.serverProblemDetail {
            response.body = .bytes(problemBody(status: response.status, detail: detail))
        }
        if let start {
            let elapsed = ContinuousClock.now - start
            for index in hooks.indices.reversed() {
                hooks[index].didRespond(to: request, context: context, response: &response, elapsed: elapsed)
            }
        }
        return (response, context.routePattern)
    }

    /// The body of the server's own problem for `status`, with the configured type and writer.
    func problemBody(status: Int, detail: String) -> [UInt8] {
        problemEncoder(ProblemDetails(type: problemType(for: status), title: HTTPStatus.reason(status), status: status, detail: detail))
    }

    /// The `type` of the server's own problem for `status`.
    func problemType(for status: Int) -> String {
        guard let base = problemTypeBase else { return "about:blank" }
        return base + String(HTTPStatus.reason(status).lowercased().map { $0 == " " ? "-" : $0 })
    }

    /// A thrown error as a response (the one place that turns them into responses): its own answer
    /// when it has one, else a logged 500 that names only the request id.
    private func problem(for error: any Error, request: Request, context: CoreRequestContext) -> Response {
        if let answered = error as? any HTTPResponseError {
            return answered.response(context: context)
        }
        logger.error("handler failed", metadata: [
            "request_id": "\(request.requestID)",
            "route": "\(context.routePattern ?? "-")",
            "error": "\(String(reflecting: error))",
        ])
        return .standardProblem(status: 500, detail: "The server failed to answer this request; request id \(request.requestID).")
    }
}
