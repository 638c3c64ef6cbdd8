import Glibc
import Logging
import ServiceLifecycle
import Synchronization

/// An HTTP/1.1 server: one epoll loop per core; the first accepts and deals connections out round-robin.
///
/// Run it in a `ServiceGroup` (graceful shutdown on SIGTERM/SIGINT), or call `start()` and `shutdown()` directly.
public final class HTTPServer: Service, Sendable {
    private enum Phase {
        case idle
        case running(loops: [EventLoop], listener: Int32, port: Int)
        case stopping
        case stopped
    }

    private let configuration: HTTPServerConfiguration
    private let core: ServerCore
    private let phase = Mutex<Phase>(.idle)
    private let stopWaiters = Mutex<[CheckedContinuation<Void, Never>]?>([])

    /// A server that answers every request with `responder`, with `hooks` (first sees the request
    /// first, last sees the response first) around it.
    ///
    /// Inlined into the caller, so that the responder's handlers are compiled for its concrete
    /// context type where the application's types are known.
    @inlinable
    public convenience init<R: Responder>(
        configuration: HTTPServerConfiguration, responder: R, hooks: [any RequestHook] = [], logger: Logger
    ) {
        self.init(
            configuration: configuration, dispatch: ServerCore.dispatch(to: responder),
            bodyMode: { responder.bodyMode(method: $0, path: $1) }, hooks: hooks, logger: logger)
    }

    @usableFromInline
    init(
        configuration: HTTPServerConfiguration, dispatch: @escaping ServerCore.Dispatch,
        bodyMode: @escaping @Sendable (HTTPMethod, String) -> BodyMode, hooks: [any RequestHook], logger: Logger
    ) {
        self.configuration = configuration
        core = ServerCore(configuration: configuration, dispatch: dispatch, bodyMode: bodyMode, hooks: hooks, logger: logger)
    }

    /// Binds and starts serving; returns the bound port (useful with port 0). Calling it again returns the same port.
    @discardableResult
    public func start() throws -> Int {
        try phase.withLock { phase in
            switch phase {
            case .running(_, _, let port):
                return port
            case .stopping, .stopped:
                throw HTTPServerError(code: .stopped, message: "the server has been shut down")
            case .idle:
                break
            }
            // A peer that disappears mid-write must not kill the process.
            signal(SIGPIPE, SIG_IGN)
            // Many keep-alive connections need many descriptors; take whatever the hard limit allows.
            DescriptorBudget.raiseOpenFileLimit()
            let count = configuration.eventLoops > 0 ? configuration.eventLoops : max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
            // One socket, not one per loop with SO_REUSEPORT: a second process cannot silently share the port.
            let (listener, port) = try Socket.listen(host: configuration.host, port: configuration.port, backlog: configuration.backlog)
            var loops: [EventLoop] = []
            do {
                for index in 0..<count {
                    loops.append(try EventLoop(server: core, listenFD: index == 0 ? listener : -1))
                }
            } catch {
                close(listener)
                throw error
            }
            loops[0].peers = loops
            loops.forEach { $0.start() }
            phase = .running(loops: loops, listener: listener, port: port)
            core.logger.info("listening", metadata: ["host": "\(configuration.host)", "port": "\(port)", "loops": "\(count)"])
            return port
        }
    }

    /// Starts if needed and serves until a graceful shutdown (or cancellation) has completed.
    public func run() async throws {
        try start()
        await withTaskCancellationOrGracefulShutdownHandler {
            await self.waitUntilStopped()
        } onCancelOrGracefulShutdown: {
            Task { await self.shutdown() }
        }
    }

    /// Stops accepting, lets in-flight requests finish within the shutdown deadline, then closes everything.
    public func shutdown() async {
        let running: (loops: [EventLoop], listener: Int32)? = phase.withLock { phase in
            switch phase {
            case .running(let loops, let listener, _):
                phase = .stopping
                return (loops, listener)
            case .idle:
                phase = .stopped
                return ([], -1)
            case .stopping, .stopped:
                return nil
            }
        }
        guard let (loops, listener) = running else {
            await waitUntilStopped()
            return
        }
        core.logger.info("shutting down", metadata: ["connections": "\(core.connectionCount)"])
        for loop in loops {
            await withCheckedContinuation { continuation in
                loop.execute {
                    loop.beginDrain()
                    continuation.resume()
                }
            }
        }
        // No loop watches the listener any more, so closing it cannot race an accept.
        if listener >= 0 { close(listener) }
        let clock = ContinuousClock()
        let deadline = clock.now + configuration.shutdownDeadline
        while core.connectionCount > 0, clock.now < deadline {
            try? await clock.sleep(for: .milliseconds(10))
        }
        for loop in loops {
            loop.execute { loop.stop() }
        }
        for loop in loops {
            await loop.waitForExit()
        }
        phase.withLock { $0 = .stopped }
        let waiters = stopWaiters.withLock { waiters in
            defer { waiters = nil }
            return waiters ?? []
        }
        waiters.forEach { $0.resume() }
        core.logger.info("stopped")
    }

    /// Open connections right now (for tests and metrics).
    public var connectionCount: Int { core.connectionCount }

    /// Bytes taken from `maxPendingBodyBytes` by bodies still arriving (for tests).
    var pendingBodyBytes: Int { core.pendingBodyByteCount }
    var queuedOutputBytes: Int { core.queuedOutput.load(ordering: .relaxed) }

    /// Connection tasks started since `start()` and those still running (for tests).
    var connectionTasks: (started: Int, running: Int) {
        (core.connectionTasksStarted.load(ordering: .relaxed), core.connectionTasksRunning.load(ordering: .relaxed))
    }

    /// Connection tasks parked between requests, summed over the loops (for tests).
    func parkedTaskCount() async -> Int {
        let loops: [EventLoop] = phase.withLock { phase in
            if case .running(let loops, _, _) = phase { return loops }
            return []
        }
        var total = 0
        for loop in loops {
            total += await withCheckedContinuation { continuation in
                loop.execute { continuation.resume(returning: loop.parkedTasks) }
            }
        }
        return total
    }

    private func waitUntilStopped() async {
        await withCheckedContinuation { continuation in
            let stopped = stopWaiters.withLock { waiters in
                guard waiters != nil else { return true }
                waiters!.append(continuation)
                return false
            }
            if stopped { continuation.resume() }
        }
    }
}
