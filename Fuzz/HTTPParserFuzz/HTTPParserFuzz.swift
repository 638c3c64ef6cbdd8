// libFuzzer entry point for the request parser, compiled together with the parser's source files
// (see Fuzz/run-http-fuzz.sh). Besides "no crash", it checks that decoding is independent of how
// the bytes are split, which is what a connection relies on.

/// Everything the decoder produced from one feeding strategy, in a comparable form.
private struct Outcome: Equatable {
    var requests: [String] = []
    var failure: Int?
}

private func run(_ bytes: [UInt8], pieces: [Range<Int>], limits: ParserLimits) -> Outcome {
    var decoder = RequestDecoder(limits: limits)
    var outcome = Outcome()
    var pending: [UInt8] = []
    // A request to a path under /s has its body streamed: its parts, joined, must be the same body.
    var streaming: (head: String, body: [UInt8])?
    for piece in pieces {
        pending += bytes[piece]
        var offset = 0
        loop: while true {
            let (used, event) = pending.withUnsafeBytes {
                decoder.decode(UnsafeRawBufferPointer(rebasing: $0[offset...])) { head in
                    head.path.hasPrefix("/s") ? .streamed(maxBytes: limits.maxBodyBytes * 2) : .buffered
                }
            }
            precondition(used >= 0 && offset + used <= pending.count, "decoder consumed more than it was given")
            offset += used
            switch event {
            case .needMore:
                break loop
            case .head:
                continue
            case .request(let head, let body):
                _ = head.query.map { QueryParameters(query: $0) }
                _ = PercentDecoding.decode(head.path.utf8, plusAsSpace: false)
                outcome.requests.append("\(head.method.rawValue) \(head.path) \(head.query ?? "") \(head.minorVersion) \(head.headers.count) \(head.keepAlive) \(body)")
            case .streamHead(let head, let bodyEnded):
                let described = "\(head.method.rawValue) \(head.path) \(head.minorVersion) \(head.keepAlive) streamed"
                if bodyEnded {
                    outcome.requests.append(described + " []")
                } else {
                    streaming = (described, [])
                }
            case .bodyPart(let part, let end):
                guard var current = streaming else { preconditionFailure("a body part outside a streamed body") }
                current.body += part
                streaming = end ? nil : current
                if end { outcome.requests.append("\(current.head) \(current.body)") }
                // A streamed body's decoder takes every byte it is given until the body ends.
                if !end { break loop }
            case .failure(let error):
                precondition([400, 413, 414, 417, 431, 501, 505].contains(error.status), "unexpected status \(error.status)")
                outcome.failure = error.status
                return outcome
            }
        }
        pending.removeFirst(offset)
    }
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var limits = ParserLimits()
    // Small limits so the fuzzer reaches the refusal paths with short inputs.
    limits.maxURIBytes = 64
    limits.maxHeaderBytes = 256
    limits.maxHeaderCount = 8
    limits.maxBodyBytes = 128
    let whole = run(bytes, pieces: [0..<size], limits: limits)
    let split = size > 0 ? Int(bytes[0]) % (size + 1) : 0
    let halves = run(bytes, pieces: [0..<split, split..<size], limits: limits)
    let single = run(bytes, pieces: (0..<size).map { $0..<($0 + 1) }, limits: limits)
    // Limits on an unfinished head are checked against what has arrived, so only complete requests must agree.
    precondition(whole.requests == halves.requests || whole.failure != nil || halves.failure != nil, "split changed the requests")
    precondition(whole.requests == single.requests || whole.failure != nil || single.failure != nil, "byte-wise feeding changed the requests")
    return 0
}
