import CEpoll
import Glibc
import Logging

/// One client connection: reads and decodes requests, runs each through the responder, writes answers in order.
///
/// What state the connection is in, and what follows from each event, is ``ConnectionStateMachine``'s
/// to decide; this class owns the socket, the buffers, the budgets and the task, and performs the
/// machine's actions.
///
/// Every method runs on the owning loop's thread (handlers start on the loop as their task executor),
/// which is why the class can be shared with the handler task without locks.
final class Connection: @unchecked Sendable {
    /// Whether the connection's request task exists and what it is doing.
    private enum Pump {
        case none
        /// Answering a request.
        case running
        /// Suspended until ``dispatch(_:body:)`` hands it the next request, or `close()` nil.
        case waiting(UnsafeContinuation<Request?, Never>)
    }

    /// What the access log and the response framing need to know about the request being answered.
    private struct Exchange {
        var method: HTTPMethod
        var minorVersion: Int
        var requestID: String
        var start: UInt64
    }

    let fd: Int32
    private let loop: EventLoop
    private let remoteAddress: String
    private var machine: ConnectionStateMachine
    private var decoder: RequestDecoder
    private var input: [UInt8] = []
    private var output: [UInt8] = []
    private var outputSent = 0
    /// What this connection's queued output adds to the server's `queuedOutput`.
    private var chargedOutput = 0
    /// How queued output has moved, for shedding stalled writers.
    private var outputProgress = OutputProgress()
    /// The socket's edge-triggered readiness, as the last events and system calls left it.
    private var readable = false
    private var writable = true
    private var hangup = false
    /// What the body being read holds of the server's pending-body budget.
    private var reservedBodyBytes = 0
    private var exchange: Exchange?
    /// The task that answers this connection's requests one after another (see ``dispatch(_:body:)``).
    private var pump = Pump.none
    /// A request decoded while the pump was still finishing the previous one (pipelining).
    private var pendingRequest: Request?
    private var drainWaiter: CheckedContinuation<Void, any Error>?
    /// Body bytes a streaming response has written so far, for the access log.
    var streamedBytes = 0
    /// The streamed request body still arriving (its handler already runs); nil once it ended.
    private var feeding: RequestBody?
    /// When the client must have sent more of `feeding` (monotonic nanoseconds).
    private var bodyDeadline: UInt64 = 0

    init(fd: Int32, loop: EventLoop, remoteAddress: String) {
        self.fd = fd
        self.loop = loop
        self.remoteAddress = remoteAddress
        decoder = RequestDecoder(limits: loop.server.limits)
        machine = ConnectionStateMachine(timeouts: loop.server.timeouts, now: loop.now)
    }

    /// When the connection's current state times out (monotonic nanoseconds); 0 means never.
    var deadline: UInt64 {
        // A streamed body the handler waits for bounds the client too; a full one waits for the handler.
        guard let feeding, feeding.awaitsClient else { return machine.deadline }
        return machine.deadline == 0 ? bodyDeadline : min(machine.deadline, bodyDeadline)
    }

    /// Whether the socket is read now: for the machine, or for a streamed body with room.
    private var acceptsInput: Bool {
        machine.acceptsInput || feeding?.wantsInput == true
    }
    var isClosed: Bool { machine.isClosed }

    // MARK: Readiness

    func handle(events: UInt32) {
        if events & (EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
            hangup = true
        }
        if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
            readable = true
        }
        if events & (EPOLLOUT.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
            writable = true
            if outputSent < output.count { flush() }
        }
        if readable { readAvailable() }
    }

    private func readAvailable() {
        let buffer = loop.readBuffer
        while readable, acceptsInput {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count > 0 {
                // Edge-triggered: a short read drained the socket, and new data raises a new edge.
                if count < buffer.count, !hangup { readable = false }
                switch machine.bytesRead(count) {
                case .decode: received(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
                case .discard: continue
                case .close: release()
                }
            } else if count == 0 {
                readable = false
                close()
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                readable = false
            } else {
                close()
            }
        }
    }

    private func received(_ bytes: UnsafeRawBufferPointer) {
        if input.isEmpty {
            // The common case: decode straight from the loop's read buffer, keep only leftovers.
            let used = decode(bytes)
            if used < bytes.count, machine.keepsInput {
                input.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[used...]))
            }
        } else {
            input.append(contentsOf: bytes)
            decodeInput()
        }
    }

    private func decodeInput() {
        // Decoding may close the connection, so it works on a copy rather than borrowing `input`.
        let pending = input
        input = []
        let used = pending.withUnsafeBytes { decode($0) }
        if used < pending.count, machine.keepsInput {
            input = Array(pending[used...])
        }
    }

    /// Decodes requests from `bytes` until one is dispatched or more input is needed, and hands a
    /// streamed body's bytes to its handler; returns bytes consumed.
    private func decode(_ bytes: UnsafeRawBufferPointer) -> Int {
        var offset = 0
        while true {
            if feeding != nil {
                if offset < bytes.count { offset += feedBody(UnsafeRawBufferPointer(rebasing: bytes[offset...])) }
                // What follows the body is the next request, read once this one is answered.
                return offset
            }
            guard machine.expectsRequest else { return offset }
            let server = loop.server
            let (used, event) = decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
                server.bodyMode($0.method, $0.path)
            }
            offset += used
            switch event {
            case .needMore:
                guard chargePendingBody() else { return offset }
                if !decoder.isIdle { machine.headStarted(now: loop.now) }
                return offset
            case .head(let head):
                guard chargePendingBody() else { return offset }
                switch machine.headReceived(expectation: continueExpectation(head), now: loop.now) {
                case .readBody:
                    break
                case .sendContinue:
                    // A client that waits for 100 Continue is told now, not after sending the body.
                    write(Self.continueLine)
                case .refuseBody:
                    refusePendingBody(requestHeaders: head.headers)
                    return offset
                }
            case .request(let head, let body):
                releaseBodyReservation()
                dispatch(head, body: body)
                return offset
            case .streamHead(let head, let bodyEnded):
                startStreamedRequest(head, bodyEnded: bodyEnded)
            case .bodyPart:
                assertionFailure("body parts come only while a streamed body is fed")
                return offset
            case .failure(let error):
                releaseBodyReservation()
                machine.refuse(now: loop.now)
                writeFinal(status: error.status, detail: "The request was refused: \(error.reason).", reason: error.reason,
                           requestHeaders: error.headers)
                return offset
            }
        }
    }

    /// Dispatches a request whose route streams its body; the body's bytes follow through ``feedBody(_:)``.
    private func startStreamedRequest(_ head: RequestHead, bodyEnded: Bool) {
        let length: Int? = switch head.framing {
        case .none: 0
        case .length(let length): length
        case .chunked: nil
        }
        let body = RequestBody(expectedLength: length, loop: loop, connection: self)
        // Its handler decides whether the body is wanted: the client is told to send it when the
        // handler first reads it, so a refusal (a file too large, a type not taken) costs no upload.
        body.continuePending = head.expectsContinue && !bodyEnded
        if bodyEnded {
            body.end()
        } else {
            feeding = body
            bodyDeadline = loop.now + loop.server.timeouts.body
        }
        dispatch(head, body: [], stream: body)
    }

    /// Hands `bytes` of the streamed body to its handler; returns the bytes that were the body's.
    private func feedBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let body = feeding else { return 0 }
        let (used, event) = decoder.decode(bytes)
        switch event {
        case .bodyPart(let part, let end):
            body.deliver(part)
            if end {
                feeding = nil
                body.end()
            } else {
                bodyDeadline = loop.now + loop.server.timeouts.body
            }
            return used
        case .failure(let error):
            // The handler hears of it and answers; the rest of the input is of no use.
            abandonBody(RequestBodyError.refused(status: error.status, reason: error.reason))
            return bytes.count
        case .needMore, .head, .request, .streamHead:
            return used
        }
    }

    /// Stops feeding a streamed body that will not end well: its handler gets `error` (if it still
    /// reads), and the connection closes after the answer, as the body's end is unknown.
    private func abandonBody(_ error: RequestBodyError) {
        guard let body = feeding else { return }
        feeding = nil
        body.fail(error)
        decoder = RequestDecoder(limits: loop.server.limits)
        machine.bodyEndsConnection()
    }

    /// The handler reads a body whose client waits for `100 Continue`.
    func sendContinue() {
        guard feeding != nil, machine.isProcessing else { return }
        bodyDeadline = loop.now + loop.server.timeouts.body
        write(Self.continueLine)
    }

    /// The handler took enough of a streamed body for the connection to read the client again.
    func bodyDrained() {
        if readable, feeding?.wantsInput == true { readAvailable() }
    }

    /// Whether `head` asks for `100 Continue`, and whether its body (by its declared length, or the
    /// body limit when chunked) would fit the pending-body budget now.
    private func continueExpectation(_ head: RequestHead) -> ConnectionStateMachine.Expectation {
        guard head.expectsContinue else { return .none }
        let declared = if case .length(let length) = head.framing { length } else { loop.server.limits.maxBodyBytes }
        return loop.server.hasPendingBodyRoom(declared, for: remoteAddress) ? .continueWithRoom : .continueWithoutRoom
    }

    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    // MARK: Requests

    private func dispatch(_ head: RequestHead, body: [UInt8], stream: RequestBody? = nil) {
        machine.requestReceived(keepAlive: head.keepAlive)
        let requestID = Self.acceptableRequestID(head.headers["X-Request-Id"]) ?? loop.makeRequestID()
        let request = Request(
            method: head.method, path: head.path, query: head.query.map { QueryParameters(query: $0) } ?? QueryParameters(),
            headers: head.headers, body: body, bodyStream: stream, parameters: Parameters(), remoteAddress: remoteAddress,
            requestID: requestID, minorVersion: head.minorVersion
        )
        exchange = Exchange(method: head.method, minorVersion: head.minorVersion, requestID: requestID, start: loop.now)
        let server = loop.server
        let loop = loop
        // Writing always happens in a task that prefers the loop, so every resumption lands back on the loop thread.
        if server.handlersOnEventLoop {
            // One task per connection, not per request: it answers a request, then waits for the next.
            // The responder chain's async frames outgrow a task's first allocator slab, so a task per
            // request would pay its creation and several malloc'd slabs each time; a kept task keeps them.
            switch pump {
            case .none:
                pump = .running
                // Handed over through `pendingRequest`, not captured: a captured request (its body
                // included) would live as long as the task.
                assert(pendingRequest == nil)
                pendingRequest = request
                server.connectionTasksStarted.wrappingAdd(1, ordering: .relaxed)
                server.connectionTasksRunning.wrappingAdd(1, ordering: .relaxed)
                Task(executorPreference: loop) { await self.answerRequests() }
            case .running:
                // Only the pump itself decodes while running (after `finish`), one request at a time.
                assert(pendingRequest == nil)
                pendingRequest = request
            case .waiting(let continuation):
                pump = .running
                loop.parkedTasks -= 1
                continuation.resume(returning: request)
            }
        } else {
            // Explicit, because a task started from a loop-preferring task would inherit the loop.
            Task(executorPreference: globalConcurrentExecutor) {
                let (response, route) = await server.respond(to: request)
                Task(executorPreference: loop) {
                    await self.send(response, route: route)
                }
            }
        }
    }

    /// The connection's pump: answers each request ``dispatch(_:body:)`` hands over, until the
    /// connection closes. Runs on the loop, which owns the connection's state. Each request is
    /// released when its iteration ends, before the pump waits for the next.
    private func answerRequests() async {
        while let request = await nextRequest() {
            await answer(request)
        }
        loop.server.connectionTasksRunning.wrappingSubtract(1, ordering: .relaxed)
    }

    /// One request; its own frame, so the request and response are released before the pump waits.
    private func answer(_ request: Request) async {
        let (response, route) = await loop.server.respond(to: request)
        // An answer already in memory goes out synchronously: no async frame for `send`.
        if loop.inLoop, !response.body.isStream {
            sendNow(response, route: route)
        } else {
            await send(response, route: route)
        }
    }

    /// The next request on this connection, or nil once it is closed (the pump then ends).
    private func nextRequest() async -> Request? {
        if !loop.inLoop { await loop.hop() }
        if machine.isClosed {
            pendingRequest = nil
            pump = .none
            return nil
        }
        if let request = pendingRequest.take() { return request }
        guard loop.parkedTasks < loop.server.maxParkedTasks else {
            pump = .none
            return nil
        }
        loop.parkedTasks += 1
        return await withUnsafeContinuation { continuation in pump = .waiting(continuation) }
    }

    /// A client's request id is echoed only if it is short and plain, so it is safe in logs and headers.
    private static func acceptableRequestID(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= 128 else { return nil }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"):
                continue
            default:
                return nil
            }
        }
        return value
    }

    /// Sends a response whose body is in memory; on the loop thread.
    private func sendNow(_ response: Response, route: String?) {
        guard let head = writeHead(response) else { return }
        finish(status: response.status, pattern: route, bodyBytes: head.bodyBytes)
    }

    private func send(_ response: Response, route: String?) async {
        if !loop.inLoop { await loop.hop() }
        guard let head = writeHead(response), let exchange else { return }
        var bodyBytes = head.bodyBytes
        if case .stream(let produce) = response.body, head.streamsBody, machine.isProcessing {
            let writer = StreamWriter(connection: self, loop: loop, chunked: head.chunked)
            streamedBytes = 0
            do {
                try await produce(writer)
                if !loop.inLoop { await loop.hop() }
                if head.chunked { write(Self.lastChunk) }
                bodyBytes = streamedBytes
            } catch {
                loop.server.logger.warning("response stream failed", metadata: ["request_id": "\(exchange.requestID)", "error": "\(error)"])
                // The head is already out, so the only honest signal left is to cut the connection.
                close()
            }
        }
        finish(status: response.status, pattern: route, bodyBytes: bodyBytes)
    }

    /// Writes the status line, headers and an in-memory body; returns the body bytes written and
    /// whether a streamed body follows (and is chunked), or nil when the connection is no longer answering.
    private func writeHead(_ response: Response) -> (bodyBytes: Int, streamsBody: Bool, chunked: Bool)? {
        guard machine.isProcessing, let exchange else { return nil }
        // Answered before its streamed body ended (a refusal): the rest is not read.
        abandonBody(.refused(status: response.status, reason: "answered before the body ended"))
        let isHead = exchange.method == .head
        let hasNoBody = response.status < 200 || response.status == 204 || response.status == 304
        var chunked = false
        var buffer = loop.writeBuffer
        loop.writeBuffer = []
        buffer.removeAll(keepingCapacity: true)
        HTTPStatus.appendStatusLine(response.status, to: &buffer)
        var hasRequestID = false
        // By index, reading the strings in place: iterating would retain and release both per field.
        let fields = response.headers.fields
        for index in fields.indices {
            let name = fields[index].name, value = fields[index].value
            guard Self.isSafe(name), Self.isSafe(value), !Self.isFramingHeader(name) else { continue }
            if !hasRequestID, HTTPHeaders.equalsIgnoringCase(name, "X-Request-Id") { hasRequestID = true }
            buffer.append(contentsOf: name.utf8)
            buffer.append(UInt8(ascii: ":"))
            buffer.append(UInt8(ascii: " "))
            buffer.append(contentsOf: value.utf8)
            buffer.append(13)
            buffer.append(10)
        }
        buffer.append(contentsOf: loop.dateLine)
        buffer.append(contentsOf: loop.server.fixedHeaders)
        if !hasRequestID {
            Self.appendRequestID(exchange.requestID, to: &buffer)
        }
        var bodyBytes = 0
        switch response.body {
        case .empty where !hasNoBody:
            buffer.append(contentsOf: Self.zeroLength)
        case .bytes(let bytes) where !hasNoBody:
            Self.appendContentLength(bytes.count, to: &buffer)
            bodyBytes = bytes.count
        case .stream where !hasNoBody:
            if exchange.minorVersion == 1 {
                chunked = true
                buffer.append(contentsOf: Self.chunkedHeader)
            } else {
                // HTTP/1.0 has no chunking: the end of the body is the end of the connection.
                machine.bodyEndsConnection()
            }
        default:
            break
        }
        if !machine.keepsAlive {
            buffer.append(contentsOf: Self.closeHeader)
        } else if exchange.minorVersion == 0 {
            buffer.append(contentsOf: Self.keepAliveHeader)
        }
        buffer.append(13)
        buffer.append(10)
        if case .bytes(let bytes) = response.body, !hasNoBody, !isHead {
            buffer.append(contentsOf: bytes)
        }
        write(buffer)
        buffer.removeAll(keepingCapacity: true)
        if buffer.capacity <= 256 * 1024 { loop.writeBuffer = buffer }
        return (bodyBytes, response.body.isStream && !hasNoBody && !isHead, chunked)
    }

    /// Logs the exchange, with the pattern of the route that answered, then moves the connection on
    /// to its next request or its end.
    private func finish(status: Int, pattern: String?, bodyBytes: Int) {
        guard let exchange else { return }
        self.exchange = nil
        let logger = loop.server.logger
        if logger.logLevel <= .info {
            let elapsed = Double(EventLoop.monotonicNow() - exchange.start) / 1_000_000
            logger.info("request", metadata: [
                "method": "\(exchange.method.rawValue)",
                "route": "\(pattern ?? "-")",
                "status": "\(status)",
                "bytes": "\(bodyBytes)",
                "duration_ms": "\((elapsed * 1000).rounded() / 1000)",
                "request_id": "\(exchange.requestID)",
            ])
        }
        // A client that half-closed (hangup) may still have sent requests the kernel holds: they are
        // read and answered in turn, and the connection closes when the read finds the end.
        switch machine.responseWritten(outputPending: outputSent < output.count, now: loop.now) {
        case .none, .awaitFlush: break
        case .closeAfterAnswer: closeAfterAnswer()
        case .resumeReading: resumeReading()
        }
    }

    /// Back to reading (the machine is idle): answers pipelined requests already buffered, then reads
    /// the socket again.
    private func resumeReading() {
        if !input.isEmpty { decodeInput() }
        if readable, machine.acceptsInput { readAvailable() }
    }

    /// Takes what the body being read has grown by since the last read from the server's
    /// pending-body budget; past the budget the request is refused with 503 and the buffer dropped.
    private func chargePendingBody() -> Bool {
        let held = decoder.pendingBodyBytes
        guard held > reservedBodyBytes else { return true }
        if loop.server.reserveBody(held - reservedBodyBytes, for: remoteAddress) {
            reservedBodyBytes = held
            return true
        }
        machine.refuse(now: loop.now)
        refusePendingBody(requestHeaders: decoder.pendingHead?.headers)
        return false
    }

    /// Refuses a body past the pending-body budget: 503 with `Retry-After`, the body dropped.
    private func refusePendingBody(requestHeaders: HTTPHeaders?) {
        dropPendingBody()
        writeFinal(status: 503, detail: "Too many request bodies are arriving at once; retry shortly.",
                   reason: "pending-body budget", retryAfter: 1, requestHeaders: requestHeaders)
    }

    /// Gives up a body still arriving (its connection is being refused): its buffer and its share.
    private func dropPendingBody() {
        decoder = RequestDecoder(limits: loop.server.limits)
        releaseBodyReservation()
    }

    /// Gives back what the body being read took from the server's pending-body budget.
    private func releaseBodyReservation() {
        guard reservedBodyBytes > 0 else { return }
        loop.server.releaseBody(reservedBodyBytes, for: remoteAddress)
        reservedBodyBytes = 0
    }

    /// Answers with the server's own problem, the connection's last answer (the machine has refused);
    /// `requestHeaders` are the refused request's fields when its head was read, for hooks that add
    /// fields to the answer (CORS).
    private func writeFinal(status: Int, detail: String, reason: String, retryAfter: Int? = nil, requestHeaders: HTTPHeaders? = nil) {
        let requestID = Self.acceptableRequestID(requestHeaders?["X-Request-Id"]) ?? loop.makeRequestID()
        // Every refusal gets an access line too (as nginx logs its 400s), with the reason instead of a route.
        loop.server.logger.info("request refused", metadata: [
            "status": "\(status)", "reason": "\(reason)", "peer": "\(remoteAddress)", "request_id": "\(requestID)",
        ])
        for hook in loop.server.hooks { hook.didRefuse(status: status) }
        let body = loop.server.problemBody(status: status, detail: detail)
        var buffer: [UInt8] = []
        HTTPStatus.appendStatusLine(status, to: &buffer)
        buffer.append(contentsOf: Self.problemType)
        buffer.append(contentsOf: loop.dateLine)
        buffer.append(contentsOf: loop.server.fixedHeaders)
        Self.appendContentLength(body.count, to: &buffer)
        Self.appendRequestID(requestID, to: &buffer)
        if let retryAfter { buffer.append(contentsOf: Array("Retry-After: \(retryAfter)\r\n".utf8)) }
        if let requestHeaders {
            for hook in loop.server.hooks {
                for (name, value) in hook.refusalHeaders(for: requestHeaders)
                where Self.isSafe(name) && Self.isSafe(value) && !Self.isFramingHeader(name) {
                    buffer.append(contentsOf: Array("\(name): \(value)\r\n".utf8))
                }
            }
        }
        buffer.append(contentsOf: Self.closeHeader)
        buffer.append(contentsOf: [13, 10])
        buffer.append(contentsOf: body)
        write(buffer)
    }

    // MARK: Writing

    /// Writes `bytes` now if nothing is queued ahead of them; whatever the socket does not take is queued.
    func write(_ bytes: [UInt8]) {
        guard !machine.isClosed else { return }
        if outputSent < output.count || !writable {
            if outputSent == output.count { outputProgress.moved(at: loop.now) }
            output.append(contentsOf: bytes)
            flush()
            chargeOutput()
            return
        }
        let sent = bytes.withUnsafeBytes { raw -> Int in
            var total = 0
            while total < raw.count {
                let count = Glibc.send(fd, raw.baseAddress! + total, raw.count - total, Int32(MSG_NOSIGNAL))
                if count > 0 {
                    total += count
                } else if count < 0, errno == EINTR {
                    continue
                } else if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                    writable = false
                    break
                } else {
                    return -1
                }
            }
            return total
        }
        if sent < 0 {
            close()
        } else if sent < bytes.count {
            output.append(contentsOf: bytes[sent...])
            outputProgress.moved(at: loop.now)
            chargeOutput()
        } else {
            flushed()
        }
    }

    /// Brings this connection's share of the server's queued-output count up to date. Only
    /// connections whose client is slower than their answers get here with anything queued.
    private func chargeOutput() {
        let queued = machine.isClosed ? 0 : output.count - outputSent
        guard queued != chargedOutput else { return }
        loop.server.queuedOutput.wrappingAdd(queued - chargedOutput, ordering: .relaxed)
        chargedOutput = queued
    }

    private func flush() {
        guard !machine.isClosed else { return }
        while outputSent < output.count, writable {
            let count = output.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + outputSent, raw.count - outputSent, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                outputSent += count
                outputProgress.moved(at: loop.now)
                machine.outputProgressed(now: loop.now)
            } else if count < 0, errno == EINTR {
                continue
            } else if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                writable = false
            } else {
                close()
                return
            }
        }
        if outputSent == output.count {
            output = []
            outputSent = 0
            chargeOutput()
            flushed()
        } else {
            chargeOutput()
        }
    }

    /// Everything queued has gone out.
    private func flushed() {
        switch machine.outputFlushed(now: loop.now) {
        case .none: break
        case .resumeStream: drainWaiter.take()?.resume()
        case .resumeReading: resumeReading()
        case .closeAfterAnswer: closeAfterAnswer()
        case .linger: halfClose()
        }
    }

    /// Closes once the last answer is out; with bytes still unread in the kernel (requests pipelined
    /// after a `Connection: close`), lingers instead.
    private func closeAfterAnswer() {
        if cepoll_unread_bytes(fd) > 0 {
            machine.linger(now: loop.now)
            halfClose()
        } else {
            close()
        }
    }

    /// Closing with unread input would send a reset that can destroy the answer in flight: the
    /// connection (lingering in the machine) half-closes and reads, and drops, what the client
    /// still sends, until it closes too or the linger times out.
    private func halfClose() {
        shutdown(fd, Int32(SHUT_WR))
        readable = true
        readAvailable()
    }

    /// Suspends a streaming body until the queued output has been written.
    func waitUntilDrained() async throws {
        if machine.isClosed { throw StreamWriter.Closed() }
        guard outputSent < output.count else { return }
        try await withCheckedThrowingContinuation { continuation in
            drainWaiter = continuation
            machine.streamAwaitsDrain(now: loop.now)
        }
    }

    var queuedBytes: Int { output.count - outputSent }

    /// Whether the client has stopped reading the queued output, by our queue and the kernel's
    /// (asked only while the server's queued output is over budget).
    func isStalledWriter() -> Bool {
        outputProgress.noteKernelQueue(unsent: Int(cepoll_unsent_bytes(fd)), at: loop.now)
        return outputProgress.isStalled(at: loop.now)
    }

    // MARK: Lifecycle

    func timedOut() {
        if let feeding, feeding.awaitsClient, bodyDeadline <= loop.now {
            loop.server.logger.debug("request body timed out", metadata: ["peer": "\(remoteAddress)"])
            abandonBody(.timedOut)
            return
        }
        switch machine.timedOut(now: loop.now) {
        case .none:
            break
        case .refuse:
            loop.server.logger.debug("request timed out", metadata: ["peer": "\(remoteAddress)"])
            // The body is abandoned now, not when the 408 has been read and the linger is over.
            let headers = decoder.pendingHead?.headers
            dropPendingBody()
            writeFinal(status: 408, detail: "The request was not received in time.", reason: "timed out", requestHeaders: headers)
        case .close:
            release()
        }
    }

    /// The server is shutting down: idle connections close now, busy ones after their answer.
    func drain() {
        if machine.shutdownBegun() == .close { release() }
    }

    func close() {
        if machine.close() { release() }
    }

    /// Gives back everything a connection the machine has closed holds: its descriptor, its place in
    /// the loop and the server's counts, its buffers, and whoever waits on it.
    private func release() {
        Glibc.close(fd)
        loop.remove(fd)
        loop.server.releaseConnection(from: remoteAddress)
        releaseBodyReservation()
        if let body = feeding {
            feeding = nil
            body.fail(.disconnected)
        }
        input = []
        output = []
        outputSent = 0
        chargeOutput()
        if let waiter = drainWaiter {
            drainWaiter = nil
            waiter.resume(throwing: StreamWriter.Closed())
        }
        if case .waiting(let continuation) = pump {
            pump = .none
            loop.parkedTasks -= 1
            continuation.resume(returning: nil)
        }
    }

    // MARK: Encoding helpers

    private static let requestIDPrefix = Array("X-Request-Id: ".utf8)
    private static let zeroLength = Array("Content-Length: 0\r\n".utf8)
    private static let chunkedHeader = Array("Transfer-Encoding: chunked\r\n".utf8)
    private static let closeHeader = Array("Connection: close\r\n".utf8)
    private static let keepAliveHeader = Array("Connection: keep-alive\r\n".utf8)
    private static let problemType = Array("Content-Type: application/problem+json\r\n".utf8)
    static let lastChunk = Array("0\r\n\r\n".utf8)

    private static func appendRequestID(_ id: String, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: requestIDPrefix)
        buffer.append(contentsOf: id.utf8)
        buffer.append(13)
        buffer.append(10)
    }

    private static func appendContentLength(_ length: Int, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: "Content-Length: ".utf8)
        appendDecimal(length, to: &buffer)
        buffer.append(13)
        buffer.append(10)
    }

    static func appendDecimal(_ value: Int, to buffer: inout [UInt8]) {
        if value >= 10 { appendDecimal(value / 10, to: &buffer) }
        buffer.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    /// Header text must not carry CR, LF or NUL, or a handler could split the response.
    static func isSafe(_ text: String) -> Bool {
        // A plain loop compiles to a byte scan; `contains(where:)` on the UTF-8 view goes through generic witnesses.
        for byte in text.utf8 where byte == 13 || byte == 10 || byte == 0 { return false }
        return true
    }

    /// The server owns message framing; a handler's own copies of these would contradict it.
    private static func isFramingHeader(_ name: String) -> Bool {
        switch name.utf8.count {
        case 10: HTTPHeaders.equalsIgnoringCase(name, "Connection")
        case 14: HTTPHeaders.equalsIgnoringCase(name, "Content-Length")
        case 17: HTTPHeaders.equalsIgnoringCase(name, "Transfer-Encoding")
        case 4: HTTPHeaders.equalsIgnoringCase(name, "Date")
        default: false
        }
    }
}
