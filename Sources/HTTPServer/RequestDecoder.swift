/// Turns a byte stream into requests: finds each head, then reads its body by length or chunks.
///
/// The decoder keeps its own position between calls, so bytes may arrive split anywhere and no byte
/// is scanned twice for the end of a head.
struct RequestDecoder: Sendable {
    enum Event: Sendable {
        /// Nothing complete yet; feed more bytes.
        case needMore
        /// A head whose body is still to come (the moment to send `100 Continue`).
        case head(RequestHead)
        /// A complete request.
        case request(RequestHead, body: [UInt8])
        /// The head of a request whose route streams its body: the body follows as `bodyPart`s
        /// (none when `bodyEnded`).
        case streamHead(RequestHead, bodyEnded: Bool)
        /// The next bytes of a streamed body; `end` with its last.
        case bodyPart([UInt8], end: Bool)
        /// The input is refused; answer the status and close.
        case failure(ParseError)
    }

    private enum State: Sendable {
        case head(scanned: Int)
        case fixed(RequestHead, remaining: Int, body: [UInt8])
        case chunked(RequestHead, ChunkedDecoder, body: [UInt8])
        case streamFixed(RequestHead, remaining: Int)
        case streamChunked(RequestHead, ChunkedDecoder)
        case failed
    }

    private var state = State.head(scanned: 0)
    let limits: ParserLimits

    init(limits: ParserLimits) {
        self.limits = limits
    }

    /// The head of the request whose body is still arriving.
    var pendingHead: RequestHead? {
        switch state {
        case .fixed(let head, _, _), .chunked(let head, _, _), .streamFixed(let head, _), .streamChunked(let head, _): head
        case .head, .failed: nil
        }
    }

    /// Memory held by the body of a request whose body is still arriving (its buffer's capacity).
    var pendingBodyBytes: Int {
        switch state {
        case .fixed(_, _, let body), .chunked(_, _, let body): body.capacity
        case .head, .streamFixed, .streamChunked, .failed: 0
        }
    }

    /// Whether the decoder is between requests with nothing buffered.
    var isIdle: Bool {
        if case .head(0) = state { return true }
        return false
    }

    /// Whether a streamed body is being decoded.
    var isStreamingBody: Bool {
        switch state {
        case .streamFixed, .streamChunked: true
        case .head, .fixed, .chunked, .failed: false
        }
    }

    /// Decodes from `input` (bytes not consumed by earlier calls); returns how many bytes it consumed.
    /// `bodyMode` says, once a head has arrived, whether its body is read whole or streamed.
    mutating func decode(
        _ input: UnsafeRawBufferPointer, bodyMode: (RequestHead) -> BodyMode = { _ in .buffered }
    ) -> (consumed: Int, event: Event) {
        switch state {
        case .failed:
            return (0, .failure(.init(status: 400, reason: "connection already failed")))
        case .head(let scanned):
            // Empty lines before the request line are ignored (RFC 9112 §2.2; `parseHead` skips them
            // too), so they must not read as the empty line that ends the head.
            var leading = 0
            while leading + 1 < input.count, input[leading] == 13, input[leading + 1] == 10 { leading += 2 }
            guard let end = HTTPParser.findHeadEnd(input, from: max(leading, scanned - 2)) else {
                if let error = oversizedHead(input) {
                    state = .failed
                    return (0, .failure(error))
                }
                state = .head(scanned: input.count)
                return (0, .needMore)
            }
            switch HTTPParser.parseHead(input, end: end, limits: limits) {
            case .incomplete:
                state = .head(scanned: input.count)
                return (0, .needMore)
            case .failure(let error):
                state = .failed
                return (0, .failure(error))
            case .complete(let head, let consumed):
                let maxBodyBytes: Int
                switch head.framing == .none ? .buffered : bodyMode(head) {
                case .buffered:
                    maxBodyBytes = limits.maxBodyBytes
                case .streamed(let maxBytes):
                    return startStream(head, consumed: consumed, maxBodyBytes: maxBytes)
                }
                if case .length(let length) = head.framing, length > maxBodyBytes {
                    state = .failed
                    return (0, .failure(.init(status: 413, reason: "body over \(maxBodyBytes) bytes", headers: head.headers)))
                }
                switch head.framing {
                case .none:
                    state = .head(scanned: 0)
                    return (consumed, .request(head, body: []))
                case .length(let length):
                    let available = input.count - consumed
                    if available >= length {
                        state = .head(scanned: 0)
                        let body = [UInt8](UnsafeRawBufferPointer(rebasing: input[consumed..<(consumed + length)]))
                        return (consumed + length, .request(head, body: body))
                    }
                    // Grown as bytes arrive: a client that declares a megabyte and sends nothing
                    // holds no megabyte.
                    state = .fixed(head, remaining: length, body: [])
                    return (consumed, .head(head))
                case .chunked:
                    state = .chunked(head, ChunkedDecoder(maxBodyBytes: limits.maxBodyBytes, maxTrailerBytes: limits.maxHeaderBytes), body: [])
                    return (consumed, .head(head))
                }
            }
        case .fixed(let head, let remaining, var body):
            state = .failed
            let take = min(remaining, input.count)
            body.appendBounded(UnsafeRawBufferPointer(rebasing: input[0..<take]), capacityLimit: body.count + remaining)
            if take == remaining {
                state = .head(scanned: 0)
                return (take, .request(head, body: body))
            }
            state = .fixed(head, remaining: remaining - take, body: body)
            return (take, .needMore)
        case .streamFixed(let head, let remaining):
            let take = min(remaining, input.count)
            let part = [UInt8](UnsafeRawBufferPointer(rebasing: input[0..<take]))
            state = take == remaining ? .head(scanned: 0) : .streamFixed(head, remaining: remaining - take)
            return (take, .bodyPart(part, end: take == remaining))
        case .streamChunked(let head, var decoder):
            state = .failed
            var part: [UInt8] = []
            let (consumed, outcome) = decoder.decode(input, into: &part)
            switch outcome {
            case .needMore:
                state = .streamChunked(head, decoder)
                return (consumed, .bodyPart(part, end: false))
            case .done:
                state = .head(scanned: 0)
                return (consumed, .bodyPart(part, end: true))
            case .failure(var error):
                error.headers = head.headers
                return (consumed, .failure(error))
            }
        case .chunked(let head, var decoder, var body):
            state = .failed
            let (consumed, outcome) = decoder.decode(input, into: &body)
            switch outcome {
            case .needMore:
                state = .chunked(head, decoder, body: body)
                return (consumed, .needMore)
            case .done:
                state = .head(scanned: 0)
                return (consumed, .request(head, body: body))
            case .failure(var error):
                // Chunks past the limit come after the head: its fields go with the refusal.
                error.headers = head.headers
                return (consumed, .failure(error))
            }
        }
    }

    /// Enters a streamed body of at most `maxBodyBytes`.
    private mutating func startStream(_ head: RequestHead, consumed: Int, maxBodyBytes: Int) -> (consumed: Int, event: Event) {
        switch head.framing {
        case .none:
            state = .head(scanned: 0)
            return (consumed, .streamHead(head, bodyEnded: true))
        case .length(let length):
            guard length <= maxBodyBytes else {
                state = .failed
                return (0, .failure(.init(status: 413, reason: "body over \(maxBodyBytes) bytes", headers: head.headers)))
            }
            state = .streamFixed(head, remaining: length)
        case .chunked:
            state = .streamChunked(head, ChunkedDecoder(maxBodyBytes: maxBodyBytes, maxTrailerBytes: limits.maxHeaderBytes))
        }
        return (consumed, .streamHead(head, bodyEnded: false))
    }

    /// Classifies a head that has grown past every limit without ending.
    private func oversizedHead(_ input: UnsafeRawBufferPointer) -> ParseError? {
        let lineLimit = limits.maxURIBytes + 64
        if input.count > lineLimit, !input[0..<lineLimit].contains(HTTPParser.lf) {
            return .init(status: 414, reason: "request target over \(limits.maxURIBytes) bytes")
        }
        if input.count > lineLimit + limits.maxHeaderBytes + 4 {
            return .init(status: 431, reason: "header section over \(limits.maxHeaderBytes) bytes")
        }
        return nil
    }
}
