/// Incremental decoder for a chunked request body (RFC 9112 §7.1); trailers are read and dropped.
///
/// Bytes can arrive split anywhere; the decoder keeps its place between calls and never rescans.
struct ChunkedDecoder: Sendable {
    private enum State: Sendable {
        case size(value: Int, digits: Int)
        /// Whitespace after the size: only a `;` (an extension) or the line's end may follow.
        case sizeSpace(size: Int)
        case extension_(size: Int)
        case sizeLF(size: Int)
        case data(remaining: Int)
        case dataCR
        case dataLF
        case trailerLineStart
        case trailerName
        case trailerLine
        case trailerLineLF
        case endLF
        case done
    }

    enum Outcome: Equatable, Sendable {
        case needMore
        case done
        case failure(ParseError)
    }

    private var state = State.size(value: 0, digits: 0)
    private var extensionBytes = 0
    /// Chunk data announced so far (a streamed body is handed on in parts, so its buffer cannot tell).
    private var decodedBytes = 0
    private var trailerBytes = 0
    let maxBodyBytes: Int
    let maxTrailerBytes: Int

    init(maxBodyBytes: Int, maxTrailerBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
        self.maxTrailerBytes = maxTrailerBytes
    }

    /// Consumes bytes from `input`, appending chunk data to `body`; returns how many bytes were consumed.
    mutating func decode(_ input: UnsafeRawBufferPointer, into body: inout [UInt8]) -> (consumed: Int, outcome: Outcome) {
        let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        var i = 0
        let n = input.count
        while i < n {
            let byte = input[i]
            switch state {
            case .size(let value, let digits):
                if let digit = PercentDecoding.hexValue(byte) {
                    // Past 2^56 any body limit we accept is exceeded (the value, not the digit count,
                    // so zero padding such as "0000000000000002" is fine).
                    guard value < 1 << 56 else { return (i, .failure(.init(status: 413, reason: "chunk size too large"))) }
                    // Zero padding is read, within reason (as chunk extensions are bounded).
                    guard digits < 64 else { return (i, .failure(.init(status: 400, reason: "chunk size line too long"))) }
                    state = .size(value: value << 4 | Int(digit), digits: digits + 1)
                } else if digits == 0 {
                    return (i, .failure(.init(status: 400, reason: "bad chunk size")))
                } else if byte == UInt8(ascii: ";") {
                    state = .extension_(size: value)
                } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                    state = .sizeSpace(size: value)
                } else if byte == cr {
                    state = .sizeLF(size: value)
                } else {
                    return (i, .failure(.init(status: 400, reason: "bad chunk size")))
                }
                i += 1
            case .sizeSpace(let size):
                // RFC 9112 §7.1.1: chunk-size [ BWS ";" ext ]. Between the size and the `;` only
                // whitespace may stand: "d junk" is not an extension, and a proxy in front may read
                // it otherwise, so it is refused.
                if byte == UInt8(ascii: ";") {
                    state = .extension_(size: size)
                } else if byte == cr {
                    state = .sizeLF(size: size)
                } else if byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") {
                    return (i, .failure(.init(status: 400, reason: "bad chunk extension")))
                }
                if let refused = countExtensionByte() { return (i, .failure(refused)) }
                i += 1
            case .extension_(let size):
                if byte == cr {
                    state = .sizeLF(size: size)
                } else if HTTPParser.isControl(byte) {
                    return (i, .failure(.init(status: 400, reason: "bad chunk extension")))
                }
                if let refused = countExtensionByte() { return (i, .failure(refused)) }
                i += 1
            case .sizeLF(let size):
                guard byte == lf else { return (i, .failure(.init(status: 400, reason: "bare CR in chunk size line"))) }
                i += 1
                if size == 0 {
                    state = .trailerLineStart
                } else {
                    guard size <= maxBodyBytes - decodedBytes else {
                        return (i, .failure(.init(status: 413, reason: "body over \(maxBodyBytes) bytes")))
                    }
                    decodedBytes += size
                    state = .data(remaining: size)
                }
            case .data(let remaining):
                let take = min(remaining, n - i)
                body.appendBounded(UnsafeRawBufferPointer(rebasing: input[i..<(i + take)]), capacityLimit: maxBodyBytes)
                i += take
                state = remaining == take ? .dataCR : .data(remaining: remaining - take)
            case .dataCR:
                guard byte == cr else { return (i, .failure(.init(status: 400, reason: "chunk data not followed by CRLF"))) }
                state = .dataLF
                i += 1
            case .dataLF:
                guard byte == lf else { return (i, .failure(.init(status: 400, reason: "chunk data not followed by CRLF"))) }
                state = .size(value: 0, digits: 0)
                i += 1
            case .trailerLineStart:
                // Trailer lines are header lines (name, colon, value), checked as strictly as the head.
                if byte == cr {
                    state = .endLF
                } else if HTTPParser.tokenTable[Int(byte)] {
                    state = .trailerName
                } else {
                    return (i, .failure(.init(status: 400, reason: "bad trailer")))
                }
                i += 1
                trailerBytes += 1
            case .trailerName:
                if byte == UInt8(ascii: ":") {
                    state = .trailerLine
                } else if !HTTPParser.tokenTable[Int(byte)] {
                    return (i, .failure(.init(status: 400, reason: "bad trailer")))
                }
                i += 1
                if let refused = countTrailerByte() { return (i, .failure(refused)) }
            case .trailerLine:
                if byte == cr {
                    state = .trailerLineLF
                } else if HTTPParser.isControl(byte) {
                    return (i, .failure(.init(status: 400, reason: "bad trailer")))
                }
                i += 1
                if let refused = countTrailerByte() { return (i, .failure(refused)) }
            case .trailerLineLF:
                guard byte == lf else { return (i, .failure(.init(status: 400, reason: "bare CR in trailer"))) }
                state = .trailerLineStart
                i += 1
            case .endLF:
                guard byte == lf else { return (i, .failure(.init(status: 400, reason: "bare CR after trailers"))) }
                state = .done
                return (i + 1, .done)
            case .done:
                return (i, .done)
            }
        }
        if case .done = state { return (i, .done) }
        return (i, .needMore)
    }

    /// Counts a byte of a chunk-size line's extensions; the refusal once they are too long.
    private mutating func countExtensionByte() -> ParseError? {
        extensionBytes += 1
        return extensionBytes > 4096 ? ParseError(status: 400, reason: "chunk extensions too long") : nil
    }

    /// Counts a byte of the trailers; the refusal once they pass their limit.
    private mutating func countTrailerByte() -> ParseError? {
        trailerBytes += 1
        return trailerBytes > maxTrailerBytes ? ParseError(status: 431, reason: "trailers over \(maxTrailerBytes) bytes") : nil
    }
}

extension [UInt8] {
    /// Appends `bytes`, growing by doubling but never past `capacityLimit` (at least what is
    /// needed): a body's buffer is what the pending-body budget charges, so it stays within the
    /// body's declared length or the body limit.
    mutating func appendBounded(_ bytes: UnsafeRawBufferPointer, capacityLimit: Int) {
        if capacity < count + bytes.count {
            reserveCapacity(Swift.min(Swift.max(capacityLimit, count + bytes.count), Swift.max(count + bytes.count, 2 * capacity)))
        }
        append(contentsOf: bytes)
    }
}
