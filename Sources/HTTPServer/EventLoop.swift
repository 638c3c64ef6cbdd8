import Dispatch
import Foundation
import CEpoll
import Glibc
import Synchronization

/// One epoll loop on its own thread: it drives its connections (the first loop also accepts and deals
/// new connections out to all loops in turn),
/// and is the task executor that request handlers start on, so a response is written without a thread hop.
final class EventLoop: TaskExecutor, @unchecked Sendable {
    // Fields below the queue are touched only on the loop thread.
    fileprivate enum Work {
        case job(UnownedJob)
        case closure(@Sendable () -> Void)
    }

    let server: ServerCore
    private let epollFD: Int32
    private let wakeFD: Int32
    private let queue = Mutex(RemoteQueue())
    private let threadID = Atomic<UInt>(0)
    private let exited = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    private let finished = Atomic<Bool>(false)
    private let afterExit = DispatchQueue(label: "http-loop-after-exit")

    private var listenFD: Int32
    private var connections: [Connection?] = []
    private var running = true
    private var draining = false
    private(set) var now: UInt64 = 0
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Scratch space responses are serialized into before their single write.
    var writeBuffer: [UInt8] = []
    /// Connection tasks suspended between requests (see `ServerCore.maxParkedTasks`).
    var parkedTasks = 0
    private var dates = DateCache()
    private var requestIDBase: UInt64
    private var requestIDCounter: UInt64 = 0
    private var nextSweep: UInt64 = 0
    private var acceptPaused = false
    /// While accept keeps running out of descriptors: since when, how often, and when to say so again.
    /// The listener is retried every sweep (100 ms), so the warning is said at most once a minute.
    private var descriptorShortage: (since: UInt64, pauses: Int, log: LogThrottle)?
    /// The loops the accepting loop deals connections to (itself included); set before the threads start.
    var peers: [EventLoop] = []
    private var nextPeer = 0
    private var started = false
    /// Work the loop queued for itself; other threads use `queue`.
    private var localQueue: [Work] = []
    private var spareQueue: [Work] = []
    private var spareRemote: [Work] = []

    static let sweepInterval: UInt64 = 100_000_000
    /// Refused connections, said at most once a second per loop: a flood would otherwise write a
    /// line per connection.
    private var refusalLog = LogThrottle(interval: 1_000_000_000)
    private var shedder = LoadShedder()
    private static let hexDigits = Array("0123456789abcdef".utf8)

    init(server: ServerCore, listenFD: Int32) throws {
        self.server = server
        self.listenFD = listenFD
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard epollFD >= 0, wakeFD >= 0 else {
            throw HTTPServerError(code: .eventLoop, message: "epoll/eventfd: \(String(cString: strerror(errno)))")
        }
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        writeBuffer.reserveCapacity(16 * 1024)
        requestIDBase = UInt64.random(in: 0..<(1 << 59))
        if listenFD >= 0 { register(listenFD, events: EPOLLIN.rawValue) }
        register(wakeFD, events: EPOLLIN.rawValue)
    }

    deinit {
        // A started loop closes its descriptors on its way out; one that never ran still owns them.
        if !started {
            Glibc.close(epollFD)
            Glibc.close(wakeFD)
        }
        readBuffer.deallocate()
    }

    /// Starts the loop's thread.
    func start() {
        started = true
        let thread = Thread { [self] in run() }
        thread.start()
    }

    var inLoop: Bool {
        threadID.load(ordering: .relaxed) == UInt(bitPattern: Int(bitPattern: pthread_self()))
    }

    /// Runs `body` on the loop thread.
    func execute(_ body: @escaping @Sendable () -> Void) {
        push(.closure(body))
    }

    /// Returns on the loop thread, for a task that prefers this loop but resumed elsewhere (after a
    /// handler or body producer ran on another executor). Callers check `inLoop` first, so the usual
    /// case costs no async frame.
    func hop() async {
        await withCheckedContinuation { continuation in execute { continuation.resume() } }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        push(.job(UnownedJob(job)))
    }

    private func push(_ work: Work) {
        if finished.load(ordering: .acquiring) {
            runAfterExit(work)
            return
        }
        if inLoop {
            // The loop's own work (a handler it just started) skips the lock.
            localQueue.append(work)
            return
        }
        let wake = queue.withLock { queue in
            queue.work.append(work)
            // Only a loop blocked in epoll_wait needs the eventfd; a busy one finds the work when it
            // next looks, so a burst of resumptions costs one wakeup, not one system call each.
            defer { queue.sleeping = false }
            return queue.sleeping
        }
        if wake {
            var one: UInt64 = 1
            _ = Glibc.write(wakeFD, &one, 8)
        }
    }

    /// Work that arrives after the loop ended (a handler outliving the shutdown deadline) still runs,
    /// one item at a time as on the loop, since connections rely on never running concurrently.
    private func runAfterExit(_ work: Work) {
        let executor = asUnownedTaskExecutor()
        switch work {
        case .job(let job):
            afterExit.async { job.runSynchronously(on: executor) }
        case .closure(let body):
            afterExit.async { body() }
        }
    }

    /// Waits until the loop thread has ended.
    func waitForExit() async {
        await withCheckedContinuation { continuation in
            let done = exited.withLock { state in
                if !state.done { state.waiters.append(continuation) }
                return state.done
            }
            if done { continuation.resume() }
        }
    }

    // MARK: Loop thread

    private func run() {
        threadID.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .relaxed)
        _ = cepoll_name_thread("http-loop")
        var events = [epoll_event](repeating: epoll_event(), count: 512)
        now = Self.monotonicNow()
        dates.update(epochSeconds: time(nil))
        while running {
            // Deciding to block and announcing it happen under the queue's lock, so a push either
            // lands before (and the wait does not block) or sees `sleeping` and writes the eventfd.
            let pending = !localQueue.isEmpty || queue.withLock { queue in
                queue.sleeping = queue.work.isEmpty
                return !queue.work.isEmpty
            }
            let count = epoll_wait(epollFD, &events, Int32(events.count), pending ? 0 : 100)
            if !pending { queue.withLock { $0.sleeping = false } }
            now = Self.monotonicNow()
            if count > 0 {
                for index in 0..<Int(count) {
                    let event = events[index]
                    let fd = Int32(truncatingIfNeeded: event.data.u64)
                    if fd == wakeFD {
                        var value: UInt64 = 0
                        _ = Glibc.read(wakeFD, &value, 8)
                    } else if fd == listenFD {
                        acceptConnections()
                    } else if Int(fd) < connections.count, let connection = connections[Int(fd)] {
                        connection.handle(events: event.events)
                        // Run the handler this event started right away, as nginx finishes one
                        // connection before the next: the first client does not wait for the whole batch.
                        if !localQueue.isEmpty { runQueued() }
                    }
                }
            }
            runQueued()
            if now >= nextSweep {
                nextSweep = now + Self.sweepInterval
                dates.update(epochSeconds: time(nil))
                sweep()
                if acceptPaused, listenFD >= 0 {
                    acceptPaused = false
                    register(listenFD, events: EPOLLIN.rawValue)
                    // At once, not at the next client: accept4 can fail for want of a descriptor with
                    // nobody waiting, and only an empty queue (EAGAIN) says the shortage is over.
                    acceptConnections()
                }
            }
        }
        for case let connection? in connections {
            connection.close()
        }
        peers = []
        Glibc.close(epollFD)
        Glibc.close(wakeFD)
        finished.store(true, ordering: .releasing)
        let leftover = localQueue + queue.withLock { queue in
            defer { queue.work.removeAll() }
            return queue.work
        }
        localQueue = []
        leftover.forEach(runAfterExit)
        let waiters = exited.withLock { state in
            state.done = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    private func runQueued() {
        // Double-buffered, so draining allocates nothing: the drained arrays come back as the next spares.
        var work = spareQueue
        swap(&work, &localQueue)
        var remote = spareRemote
        queue.withLock { swap(&$0.work, &remote) }
        run(work)
        run(remote)
        work.removeAll(keepingCapacity: true)
        remote.removeAll(keepingCapacity: true)
        spareQueue = work
        spareRemote = remote
    }

    private func run(_ work: [Work]) {
        let executor = asUnownedTaskExecutor()
        for item in work {
            switch item {
            case .job(let job): job.runSynchronously(on: executor)
            case .closure(let body): body()
            }
        }
    }

    private func acceptConnections() {
        var address = sockaddr_storage()
        for _ in 0..<256 {
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    cepoll_accept4(listenFD, $0, &length, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
                }
            }
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
                    // Out of descriptors: the listener stays readable, so pause it instead of spinning.
                    let code = errno
                    var shortage = descriptorShortage ?? (since: now, pauses: 0, log: LogThrottle(interval: 60_000_000_000))
                    shortage.pauses += 1
                    if shortage.log.record(at: now) != nil {
                        if shortage.pauses == 1 {
                            server.logger.warning("accept paused: out of descriptors; retried every 100 ms, said again at most once a minute",
                                                  metadata: ["errno": "\(code)", "open": "\(server.connectionCount)"])
                        } else {
                            server.logger.warning("accept still paused: out of descriptors", metadata: [
                                "errno": "\(code)", "seconds": "\((now - shortage.since) / 1_000_000_000)", "pauses": "\(shortage.pauses)",
                                "open": "\(server.connectionCount)",
                            ])
                        }
                    }
                    descriptorShortage = shortage
                    epoll_ctl(epollFD, EPOLL_CTL_DEL, listenFD, nil)
                    acceptPaused = true
                } else if errno != EAGAIN && errno != EWOULDBLOCK {
                    server.logger.warning("accept failed", metadata: ["errno": "\(errno)"])
                } else if let shortage = descriptorShortage {
                    // Over once every waiting connection was taken, not at the first one taken: the
                    // backlog left by the shortage often runs out of descriptors again for a moment.
                    descriptorShortage = nil
                    server.logger.notice("accept resumed", metadata: [
                        "seconds": "\((now - shortage.since) / 1_000_000_000)", "pauses": "\(shortage.pauses)"])
                }
                return
            }
            let remoteAddress = Socket.addressString(&address)
            guard !draining, server.admitConnection(from: remoteAddress) else {
                // Refusing at once keeps a flood from queueing behind the limit.
                Glibc.close(fd)
                if !draining, let refused = refusalLog.record(at: now) {
                    server.logger.warning("connections refused: the server's or an address's connection limit is reached", metadata: [
                        "peer": "\(remoteAddress)", "refused": "\(refused)", "open": "\(server.connectionCount)",
                    ])
                }
                continue
            }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            // Round-robin: the kernel would hand a shared socket's connections mostly to one loop.
            let target = peers.isEmpty ? self : peers[nextPeer % peers.count]
            nextPeer &+= 1
            if target === self {
                adopt(fd, remoteAddress: remoteAddress)
            } else {
                target.execute { target.adopt(fd, remoteAddress: remoteAddress) }
            }
        }
    }

    /// Takes over an accepted connection (on this loop's thread).
    func adopt(_ fd: Int32, remoteAddress: String) {
        guard running, !draining else {
            Glibc.close(fd)
            server.releaseConnection(from: remoteAddress)
            return
        }
        let connection = Connection(fd: fd, loop: self, remoteAddress: remoteAddress)
        if Int(fd) >= connections.count {
            connections += [Connection?](repeating: nil, count: Int(fd) + 64 - connections.count)
        }
        connections[Int(fd)] = connection
        register(fd, events: EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue)
    }

    private func register(_ fd: Int32, events: UInt32) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = UInt64(UInt32(bitPattern: fd))
        epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event)
    }

    /// Forgets a connection whose descriptor was just closed.
    func remove(_ fd: Int32) {
        if Int(fd) < connections.count {
            connections[Int(fd)] = nil
        }
    }

    private func sweep() {
        for case let connection? in connections where connection.deadline != 0 && connection.deadline <= now {
            connection.timedOut()
        }
        shedder.sweep(connections, loop: ObjectIdentifier(self), server: server)
    }

    /// Stops accepting and asks every connection to close once its current request is answered.
    /// The server closes the shared listening socket once every loop has let go of it.
    func beginDrain() {
        draining = true
        if listenFD >= 0 {
            if !acceptPaused { epoll_ctl(epollFD, EPOLL_CTL_DEL, listenFD, nil) }
            listenFD = -1
        }
        for case let connection? in connections {
            connection.drain()
        }
    }

    /// Ends the loop, closing whatever is still open.
    func stop() {
        running = false
    }

    /// `Date: …\r\n` for the current second.
    var dateLine: [UInt8] { dates.line }

    /// A fresh request id: 15 hex digits (an inline string, no allocation).
    func makeRequestID() -> String {
        requestIDCounter &+= 1
        var value = (requestIDBase &+ requestIDCounter) & ((1 << 60) - 1)
        return String(unsafeUninitializedCapacity: 15) { buffer in
            for index in stride(from: 14, through: 0, by: -1) {
                buffer[index] = Self.hexDigits[Int(value & 0xF)]
                value >>= 4
            }
            return 15
        }
    }

    static func monotonicNow() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}

/// Work handed to a loop from other threads, and whether the loop is blocked waiting for events.
private struct RemoteQueue {
    var work: [EventLoop.Work] = []
    var sleeping = false
}
