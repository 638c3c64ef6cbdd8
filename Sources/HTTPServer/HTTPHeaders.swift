/// Header fields in the order they were sent or added, looked up by name case-insensitively.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    @usableFromInline
    var fields: [(name: String, value: String)]

    /// An empty header list.
    public init() {
        fields = []
    }

    /// Headers from ordered `(name, value)` pairs; repeated names are kept.
    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { (name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of the named field, or nil.
    public subscript(name: String) -> String? {
        // By index: `for field in fields` would retain and release both strings of every field passed.
        for index in fields.indices where Self.equalsIgnoringCase(fields[index].name, name) {
            return fields[index].value
        }
        return nil
    }

    /// Every value of the named field, in order.
    public func values(_ name: String) -> [String] {
        fields.compactMap { Self.equalsIgnoringCase($0.name, name) ? $0.value : nil }
    }

    /// The named field's lines as one comma-separated list (RFC 9110 §5.3), or nil when absent: list
    /// fields such as `If-None-Match` may be split over several lines.
    public func list(_ name: String) -> String? {
        let lines = values(name)
        return lines.isEmpty ? nil : lines.joined(separator: ",")
    }

    /// Whether the named field is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.equalsIgnoringCase($0.name, name) }
    }

    /// Appends a field, keeping any with the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field of that name with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name: name, value: value))
    }

    /// Removes every field of that name.
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.equalsIgnoringCase($0.name, name) }
    }

    /// The number of fields.
    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    /// ASCII case-insensitive comparison; header names are ASCII tokens. Reads both strings in place
    /// (`withUTF8` would need mutable copies, a retain and release of each per comparison).
    @inlinable
    static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        let inPlace = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in equalsIgnoringCase(x, y) }
        }
        if let inPlace, let result = inPlace { return result }
        return equalsIgnoringCase(Array(a.utf8), Array(b.utf8))
    }

    @inlinable
    static func equalsIgnoringCase<C: RandomAccessCollection<UInt8>>(_ x: C, _ y: C) -> Bool where C.Index == Int {
        guard x.count == y.count else { return false }
        for i in 0..<x.count where x[x.startIndex + i] != y[y.startIndex + i] {
            let lower = x[x.startIndex + i] | 0x20
            if lower != y[y.startIndex + i] | 0x20 { return false }
            if lower < UInt8(ascii: "a") || lower > UInt8(ascii: "z") { return false }
        }
        return true
    }
}
