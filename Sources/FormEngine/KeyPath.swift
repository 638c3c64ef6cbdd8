/// A parsed key path: `addresses[1].postcode` → key, index, key.
struct KeyPath: Sendable {
    enum Segment: Sendable, Equatable {
        case key(String)
        case index(Int)
    }

    /// What an id with `.` or `[` in it is.
    enum Parsed {
        case path(KeyPath)
        /// Not key-path syntax (`a..b`, `x[y]`): kept as a plain id, which the form will not know.
        case notAPath
        /// Key-path syntax past the limits: more segments than nesting allows, or an index too high.
        case tooLarge(String)
    }

    var segments: [Segment]

    static func parse(_ text: String, limits: SubmissionLimits) -> Parsed {
        var segments: [Segment] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            // Checked before each segment is built, so a very long id stops early.
            guard segments.count < limits.maxDepth else {
                return .tooLarge("nests deeper than \(limits.maxDepth) levels")
            }
            var rest = part[...]
            guard let bracket = rest.firstIndex(of: "[") else {
                guard !rest.isEmpty else { return .notAPath }
                segments.append(.key(String(rest)))
                continue
            }
            let key = rest[..<bracket]
            guard !key.isEmpty else { return .notAPath }
            segments.append(.key(String(key)))
            rest = rest[bracket...]
            while !rest.isEmpty {
                guard rest.first == "[", let close = rest.firstIndex(of: "]") else { return .notAPath }
                let digits = rest[rest.index(after: rest.startIndex)..<close]
                guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                    return .notAPath
                }
                guard let index = Int(digits), index <= limits.maxIndex else {
                    return .tooLarge("names a repeat index over \(limits.maxIndex)")
                }
                guard segments.count < limits.maxDepth else {
                    return .tooLarge("nests deeper than \(limits.maxDepth) levels")
                }
                segments.append(.index(index))
                rest = rest[rest.index(after: close)...]
            }
        }
        return .path(KeyPath(segments: segments))
    }
}
