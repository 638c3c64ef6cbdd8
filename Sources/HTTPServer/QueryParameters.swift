/// The decoded `name=value` pairs of a query string, in order (`+` means space, `%XX` is decoded).
public struct QueryParameters: Sendable, Sequence {
    private var pairs: [(name: String, value: String)]
    /// Some pair's percent-encoding did not decode (`%ZZ`, a cut `%4`, invalid UTF-8); that pair is
    /// left out.
    public private(set) var isMalformed = false
    /// Names whose value did not decode: a handler that reads one should refuse the request rather
    /// than act without, say, its filter. Other parameters' junk (`utm=50%off`) harms no one.
    private var malformedNames: Set<String> = []

    /// No parameters.
    public init() {
        pairs = []
    }

    /// Parses a raw query string (the part after `?`); malformed pairs are left out and set `isMalformed`.
    public init(query: String) {
        pairs = []
        var malformed = false
        var malformedNames: Set<String> = []
        defer {
            isMalformed = malformed
            self.malformedNames = malformedNames
        }
        var query = query
        query.withUTF8 { bytes in
            for piece in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
                let name: String?
                let value: String?
                if let equals = piece.firstIndex(of: UInt8(ascii: "=")) {
                    name = PercentDecoding.decode(piece[piece.startIndex..<equals], plusAsSpace: true)
                    value = PercentDecoding.decode(piece[(equals + 1)...], plusAsSpace: true)
                } else {
                    name = PercentDecoding.decode(piece, plusAsSpace: true)
                    value = ""
                }
                if let name, let value {
                    pairs.append((name: name, value: value))
                } else {
                    malformed = true
                    if let name { malformedNames.insert(name) }
                }
            }
        }
    }

    /// Whether `name` was sent with a value whose percent-encoding did not decode.
    public func isMalformed(_ name: String) -> Bool {
        malformedNames.contains(name)
    }

    /// The first value for `name`, or nil.
    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Every value for `name`, in order.
    public func values(_ name: String) -> [String] {
        pairs.compactMap { $0.name == name ? $0.value : nil }
    }

    /// Whether there are no parameters.
    public var isEmpty: Bool { pairs.isEmpty }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        pairs.makeIterator()
    }
}
