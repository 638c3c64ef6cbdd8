/// The languages a person asks for, best first: an `Accept-Language` header or a `?lang=` value,
/// ready for RFC 4647 lookup (§3.4) among the languages something is offered in.
public struct LanguagePriorityList: Sendable, Equatable {
    /// The language ranges asked for, best first (`*` among them when sent); ranges of equal weight
    /// keep the order they were sent in.
    public let ranges: [String]
    /// The ranges sent with `q=0`: "not this one", also for the tags they are a prefix of (`es;q=0`
    /// refuses `es-MX`) and through `*`.
    public let refused: [String]

    /// No preference: a lookup finds nothing, and the caller's default applies.
    public init() {
        ranges = []
        refused = []
    }

    /// The ranges given, in this order (a `?lang=` value is one range); at most ``maxItems`` of them,
    /// each at most ``maxRangeBytes`` long.
    public init(_ ranges: [String]) {
        self.ranges = Array(ranges.lazy.filter { $0.utf8.count <= Self.maxRangeBytes }.prefix(Self.maxItems))
        refused = []
    }

    /// The most items of a header, or ranges, that are read.
    public static let maxItems = 32

    /// The longest range read: the longest tag a form may have (``LanguageTag/maximumLength``).
    public static let maxRangeBytes = LanguageTag.maximumLength

    /// The ranges of an `Accept-Language` header (RFC 9110 §12.5.4), sorted by weight. An item that
    /// is not `range[;q=weight]` (a range is `*` or up to eight letters, then `-` and up to eight
    /// letters or digits, as often as needed, ``maxRangeBytes`` in all) is ignored rather than
    /// spoiling the rest.
    /// At most ``maxItems`` items are read, and a range given twice counts once: a browser sends a
    /// handful, and a hostile header of thousands must not make each lookup cost thousands of steps.
    public init(acceptLanguage header: String) {
        var weighted: [(range: String, q: Int)] = []
        var refused: [String] = []
        var seen = Set<String>()
        for item in header.split(separator: ",", maxSplits: Self.maxItems, omittingEmptySubsequences: true).prefix(Self.maxItems) {
            let parts = item.split(separator: ";", omittingEmptySubsequences: false)
            let range = parts[0].trimmingOptionalWhitespace()
            guard Self.isRange(range) else { continue }
            var q = 1000
            if parts.count == 2, let weight = Self.weight(parts[1].trimmingOptionalWhitespace()) {
                q = weight
            } else if parts.count != 1 {
                continue
            }
            guard seen.insert(range.lowercased()).inserted else { continue }
            if q == 0 { refused.append(String(range)) } else { weighted.append((String(range), q)) }
        }
        // Sorting is stable from Swift 5 on, so equal weights keep the order they were sent in.
        ranges = weighted.sorted { $0.q > $1.q }.map(\.range)
        self.refused = refused
    }

    /// RFC 4647 lookup: for each range, best first, the tag among `available` equal to it, or to it
    /// shortened by its last subtags (`es-MX` finds `es`, never the other way round: `pt` does not
    /// find `pt-BR`); `*` finds the first of `available` not refused. Nil when nothing is found, and
    /// the caller applies its default.
    public func lookup(_ available: [String]) -> String? {
        for range in ranges {
            if range == "*" {
                if let tag = available.first(where: { !isRefused($0) }) { return tag }
                continue
            }
            var candidate = Substring(range)
            while !candidate.isEmpty {
                if let tag = available.first(where: { LanguageTag.same($0, String(candidate)) }), !isRefused(tag) { return tag }
                candidate = Self.shortened(candidate)
            }
        }
        return nil
    }

    /// Whether a `q=0` range refuses `tag`: it equals the tag, or is a prefix of it ending at a `-`.
    private func isRefused(_ tag: String) -> Bool {
        refused.contains { range in
            range == "*" || LanguageTag.same(range, tag)
                || (tag.utf8.count > range.utf8.count && tag.lowercased().hasPrefix(range.lowercased() + "-"))
        }
    }

    /// The range without its last subtag, and without a single-character subtag left last
    /// (`zh-Hant-CN-x-private` → `zh-Hant-CN`, as RFC 4647 §3.4 says).
    private static func shortened(_ range: Substring) -> Substring {
        guard let dash = range.lastIndex(of: "-") else { return "" }
        var shorter = range[..<dash]
        if let previous = shorter.lastIndex(of: "-"), shorter.distance(from: previous, to: shorter.endIndex) == 2 {
            shorter = shorter[..<previous]
        }
        return shorter
    }

    private static func isRange(_ range: Substring) -> Bool {
        if range == "*" { return true }
        guard range.utf8.count <= maxRangeBytes else { return false }
        let subtags = range.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = subtags.first, (1...8).contains(first.utf8.count), first.utf8.allSatisfy(LanguageTag.isLetter) else { return false }
        return subtags.dropFirst().allSatisfy { (1...8).contains($0.utf8.count) && $0.utf8.allSatisfy(LanguageTag.isAlphanumeric) }
    }

    /// A weight `q=0` to `q=1` with up to three decimals, in thousandths; nil when malformed.
    private static func weight(_ text: Substring) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 3, bytes[0] | 0x20 == UInt8(ascii: "q"), bytes[1] == UInt8(ascii: "=") else { return nil }
        let value = bytes[2...]
        guard let whole = value.first, whole == UInt8(ascii: "0") || whole == UInt8(ascii: "1") else { return nil }
        var thousandths = Int(whole - 0x30) * 1000
        if value.count > 1 {
            let decimals = value.dropFirst(2)
            guard value[value.startIndex + 1] == UInt8(ascii: "."), decimals.count <= 3,
                  decimals.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            var scale = 100
            for digit in decimals {
                thousandths += Int(digit - 0x30) * scale
                scale /= 10
            }
        }
        return thousandths <= 1000 ? thousandths : nil
    }
}

private extension Substring {
    /// The text without spaces and tabs at either end (HTTP's optional whitespace).
    func trimmingOptionalWhitespace() -> Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
