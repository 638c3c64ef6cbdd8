/// Limits that keep hostile JSON from exhausting the stack or memory.
public struct JSONLimits: Sendable {
    /// Deepest nesting of arrays and objects.
    public var maxDepth: Int = 64

    /// Limits allowing `maxDepth` levels of nesting.
    public init(maxDepth: Int = 64) {
        self.maxDepth = maxDepth
    }
}

extension JSONValue {
    /// Parses UTF-8 JSON in one pass over the bytes (RFC 8259; invalid UTF-8 and duplicate keys are rejected).
    public init(parsing bytes: some Collection<UInt8>, limits: JSONLimits = .init()) throws(JSONParseError) {
        let result: Result<JSONValue, JSONParseError>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParseError) in try JSONParser.parse(buffer, limits: limits) }
        }
        if let result {
            self = try result.get()
        } else {
            let array = Array(bytes)
            self = try array.withUnsafeBufferPointer { buffer throws(JSONParseError) in
                try JSONParser.parse(buffer, limits: limits)
            }
        }
    }
}

/// A recursive-descent JSON parser over a byte buffer.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0
    private let maxDepth: Int
    /// Reused between strings so escapes and non-ASCII text decode without per-string allocation.
    private(set) var scratch: [UInt8] = []
    /// Members and elements of the containers being parsed; each container moves its part into an
    /// exact-size array when it closes, so no container array grows by reallocation.
    private var memberStack: [JSONObject.Member] = []
    /// A cheap hash of each key on `memberStack`, so duplicate checks compare integers first.
    private var keyHashStack: [UInt32] = []
    private var elementStack: [JSONValue] = []
    /// Keys of the objects checked but not built (skipped members, snapshot components), decoded into
    /// one reused buffer, so their duplicates are caught without a `String` per key.
    var checkedKeyBytes: [UInt8] = []
    var checkedKeys: [CheckedKey] = []

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, maxDepth: limits.maxDepth)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.position != bytes.count {
            throw parser.error("unexpected data after the JSON value")
        }
        return value
    }

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    func error(_ message: String, at offset: Int? = nil) -> JSONParseError {
        JSONParseError(offset: offset ?? position, message: message)
    }

    mutating func skipWhitespace() {
        var p = position
        while p < bytes.count {
            switch bytes[p] {
            case 0x20, 0x0A, 0x0D, 0x09: p += 1
            default:
                position = p
                return
            }
        }
        position = p
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard position < bytes.count else { throw error("unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - position >= count else { throw error("unexpected end of input") }
        let start = literal.utf8Start
        for i in 0..<count where bytes[position + i] != start[i] {
            throw error("invalid literal")
        }
        position += count
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > maxDepth {
            throw JSONParseError(offset: position, message: "nesting deeper than \(maxDepth) levels", code: .tooDeep)
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        position += 1
        // One allocation up front instead of regrowing through 1, 3, 6, 12 members (each a copy).
        if memberStack.capacity == 0 {
            memberStack.reserveCapacity(16)
            keyHashStack.reserveCapacity(16)
        }
        let start = memberStack.count
        var seen: Set<String>?
        if closesEmpty(UInt8(ascii: "}")) { return .object(JSONObject()) }
        while true {
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input") }
            guard bytes[position] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let keyOffset = position
            let (key, hash) = try parseKey()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':'") }
            position += 1
            skipWhitespace()
            let value = try parseValue()
            // Duplicate keys: compare key hashes by scanning while the object is small and its keys
            // ASCII; very large objects, and any with a non-ASCII key, switch to a set so hostile bodies
            // stay linear. Keys are the same when Swift's == says so (canonical equivalence: "café"
            // spelled with é or with e and U+0301, "K" and the Kelvin sign), as lookups later compare
            // them, and as the set hashes them; ASCII bytes are their own canonical form.
            if seen == nil, memberStack.count - start < 256, hash != Self.nonASCIIKey {
                for i in start..<keyHashStack.count where keyHashStack[i] == hash && memberStack[i].key == key {
                    throw error("duplicate key \"\(key)\"", at: keyOffset)
                }
                keyHashStack.append(hash)
            } else {
                if seen == nil { seen = Set(memberStack[start...].map(\.key)) }
                if !seen!.insert(key).inserted { throw error("duplicate key \"\(key)\"", at: keyOffset) }
                keyHashStack.append(0)
            }
            memberStack.append(JSONObject.Member(key: key, value: value))
            if try closes(UInt8(ascii: "}")) {
                let object = JSONObject(uniqueMembers: Self.popAll(from: &memberStack, downTo: start))
                keyHashStack.removeLast(keyHashStack.count - start)
                return .object(object)
            }
        }
    }

    /// The stack's elements from `start` on, moved (not copied, which would retain each and then
    /// release it on removal) into an array of exactly their count.
    private static func popAll<Element>(from stack: inout [Element], downTo start: Int) -> [Element] {
        let count = stack.count - start
        return [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in stride(from: count - 1, through: 0, by: -1) {
                (buffer.baseAddress! + index).initialize(to: stack.removeLast())
            }
            initialized = count
        }
    }

    /// The hash of every key with a non-ASCII byte (its object then checks keys with a set); no ASCII
    /// key hashes to it.
    private static let nonASCIIKey: UInt32 = 0

    /// Parses a key, with FNV-1a of its decoded bytes when they are ASCII (ASCII text equals only
    /// itself), else `nonASCIIKey`.
    private mutating func parseKey() throws(JSONParseError) -> (String, UInt32) {
        if let range = try scanString() {
            let raw = UnsafeBufferPointer(rebasing: bytes[range])
            return (String(decoding: raw, as: UTF8.self), Self.keyHash(raw))
        }
        return (String(decoding: scratch, as: UTF8.self), scratch.withUnsafeBufferPointer(Self.keyHash))
    }

    private static func keyHash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        var high: UInt8 = 0
        for byte in bytes {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
            high |= byte
        }
        if high >= 0x80 { return nonASCIIKey }
        return hash == nonASCIIKey ? 1 : hash
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        position += 1
        let start = elementStack.count
        if closesEmpty(UInt8(ascii: "]")) { return .array([]) }
        while true {
            skipWhitespace()
            let element = try parseValue()
            elementStack.append(element)
            if try closes(UInt8(ascii: "]")) { return .array(Self.popAll(from: &elementStack, downTo: start)) }
        }
    }

    /// At the start of a container's content: when `close` is next, consumes it and leaves the empty
    /// container.
    @inline(__always)
    private mutating func closesEmpty(_ close: UInt8) -> Bool {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == close else { return false }
        position += 1
        depth -= 1
        return true
    }

    /// After a member or an element: consumes the `,` before the next one (false), or `close`, leaving
    /// the container (true).
    @inline(__always)
    private mutating func closes(_ close: UInt8) throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard position < bytes.count else { throw error("unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: ","):
            position += 1
            return false
        case close:
            position += 1
            depth -= 1
            return true
        default:
            throw error(close == UInt8(ascii: "}") ? "expected ',' or '}'" : "expected ',' or ']'")
        }
    }

    /// Checks the syntax of one value and moves past it without building anything.
    mutating func skipValue() throws(JSONParseError) {
        guard position < bytes.count else { throw error("unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let close = bytes[position] == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
            try enter()
            position += 1
            if closesEmpty(close) { return }
            let keys = close == UInt8(ascii: "}") ? beginKeys() : nil
            var seen: Set<[UInt8]>?
            while true {
                skipWhitespace()
                if let keys {
                    guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a string key") }
                    let keyOffset = position
                    try recordKey(try scanString(), since: keys, seen: &seen, at: keyOffset)
                    skipWhitespace()
                    guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':'") }
                    position += 1
                    skipWhitespace()
                }
                try skipValue()
                if try closes(close) {
                    if let keys { endKeys(keys) }
                    return
                }
            }
        case UInt8(ascii: "\""): _ = try scanString()
        default: _ = try parseValue()
        }
    }

    /// Whether the string last scanned by `scanString` (its `range`, or `scratch` when nil) is `literal`.
    func scanned(_ range: Range<Int>?, equals literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        let start = literal.utf8Start
        if let range {
            guard range.count == count else { return false }
            for i in 0..<count where bytes[range.lowerBound + i] != start[i] { return false }
            return true
        }
        guard scratch.count == count else { return false }
        for i in 0..<count where scratch[i] != start[i] { return false }
        return true
    }

    /// The current byte offset.
    var offset: Int { position }

    /// The next significant byte, if any.
    var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    /// Consumes `byte` (after whitespace) or throws `message`.
    mutating func expect(_ byte: UInt8, _ message: String) throws(JSONParseError) {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else { throw error(message) }
        position += 1
    }

    /// Consumes `byte` (after whitespace) when it is next.
    mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// Leaves a container entered with `enter()`.
    mutating func leave() { depth -= 1 }

    /// Checks that nothing but whitespace follows.
    mutating func finish() throws(JSONParseError) {
        skipWhitespace()
        if position != bytes.count { throw error("unexpected data after the JSON value") }
    }

    /// Parses a string starting at the opening quote.
    mutating func parseString() throws(JSONParseError) -> String {
        if let range = try scanString() {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
        return String(decoding: scratch, as: UTF8.self)
    }

    /// Scans a string starting at the opening quote, validating escapes and UTF-8. Returns the byte
    /// range of plain ASCII text without escapes (the common case, no copy); otherwise nil, with the
    /// decoded bytes in `scratch`.
    mutating func scanString() throws(JSONParseError) -> Range<Int>? {
        let start = position + 1
        var p = start
        // Eight bytes at a time while none is a quote, a backslash, a control or a non-ASCII byte.
        if let base = bytes.baseAddress {
            while bytes.count - p >= 8 {
                let word = UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self)
                if Self.needsAttention(word) { break }
                p += 8
            }
        }
        while p < bytes.count {
            let byte = bytes[p]
            if byte == UInt8(ascii: "\"") {
                position = p + 1
                return start..<p
            }
            if byte == UInt8(ascii: "\\") || byte >= 0x80 || byte < 0x20 { break }
            p += 1
        }
        position = p
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return nil
            case UInt8(ascii: "\\"):
                try parseEscape()
            case 0..<0x20:
                throw error("control character in string")
            case 0..<0x80:
                scratch.append(byte)
                position += 1
            default:
                try copyUTF8Sequence()
            }
        }
        throw error("unterminated string")
    }

    /// Whether any byte of `word` is `"`, `\\`, below 0x20 or at least 0x80 (SWAR; exact on existence).
    @inline(__always)
    private static func needsAttention(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & highs }
        let quote = hasZero(word ^ (ones &* 0x22))
        let backslash = hasZero(word ^ (ones &* 0x5C))
        let control = (word &- ones &* 0x20) & ~word & highs
        return (quote | backslash | control | (word & highs)) != 0
    }

    /// Validates one multi-byte UTF-8 sequence (no overlongs, no surrogates, at most U+10FFFF) and copies it.
    private mutating func copyUTF8Sequence() throws(JSONParseError) {
        let lead = bytes[position]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upper = 0x9F
        case 0xF0: length = 4; lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upper = 0x8F
        default: throw error("invalid UTF-8")
        }
        guard bytes.count - position >= length else { throw error("invalid UTF-8") }
        let second = bytes[position + 1]
        guard second >= lower, second <= upper else { throw error("invalid UTF-8") }
        for i in 2..<max(length, 2) where bytes[position + i] & 0xC0 != 0x80 {
            throw error("invalid UTF-8")
        }
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position..<position + length]))
        position += length
    }

    private mutating func parseEscape() throws(JSONParseError) {
        guard bytes.count - position >= 2 else { throw error("unterminated string") }
        let escape = bytes[position + 1]
        position += 2
        switch escape {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"),
                      bytes[position + 1] == UInt8(ascii: "u") else { throw error("unpaired surrogate") }
                position += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("unpaired surrogate")
            }
            appendUTF8(scalar)
        default:
            throw error("invalid escape", at: position - 1)
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw error("invalid \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Parses a number per the JSON grammar. Short integers are computed directly; anything else goes
    /// through the standard library's correctly rounded conversion.
    private mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = position
        var negative = false
        if bytes[position] == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        guard position < bytes.count, isDigit(bytes[position]) else { throw error("invalid number") }
        var integer: UInt64 = 0
        var digits = 0
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            digits = 1
        } else {
            while position < bytes.count, isDigit(bytes[position]) {
                integer = integer &* 10 &+ UInt64(bytes[position] - UInt8(ascii: "0"))
                digits += 1
                position += 1
            }
        }
        var simple = digits <= 15
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            simple = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw error("invalid number") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            simple = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else { throw error("invalid number") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if simple {
            let value = Double(integer)
            return negative ? -value : value
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("number out of range", at: start) }
        return value
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
