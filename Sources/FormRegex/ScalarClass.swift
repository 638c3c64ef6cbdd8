/// A set of Unicode scalars: what one step of a pattern may consume.
///
/// Literals, `.`, escapes like `\d` and bracket expressions all become a `ScalarClass`. Membership is
/// decided on scalar values; case-insensitive classes also accept a scalar whose simple lowercase,
/// uppercase or lowercase-of-uppercase form is a member (an approximation of ICU's case closure).
struct ScalarClass: Hashable, Sendable {
    /// Sorted, non-overlapping, non-adjacent ranges of scalar values.
    var ranges: [ClosedRange<UInt32>] = []
    var properties: [ScalarProperty] = []
    var negated = false
    var caseInsensitive = false

    init(ranges: [ClosedRange<UInt32>] = [], properties: [ScalarProperty] = [], negated: Bool = false) {
        self.ranges = ranges
        self.properties = properties
        self.negated = negated
        normalize()
    }

    static func scalar(_ value: UInt32) -> ScalarClass {
        ScalarClass(ranges: [value...value])
    }

    /// ICU's line terminators, which `.` does not match.
    static let lineTerminators: [ClosedRange<UInt32>] = [0x0A...0x0D, 0x85...0x85, 0x2028...0x2029]

    static let anyExceptLineTerminator = ScalarClass(ranges: lineTerminators, negated: true)
    static let any = ScalarClass(ranges: [0...0x10FFFF])

    mutating func add(_ range: ClosedRange<UInt32>) {
        ranges.append(range)
    }

    /// Adds the members of a non-negated class (an escape such as `\d` inside brackets).
    mutating func add(_ other: ScalarClass) {
        ranges.append(contentsOf: other.ranges)
        properties.append(contentsOf: other.properties)
    }

    /// Makes the class case-insensitive. The case variants of up to 1,024 listed scalars are added
    /// up front, so that `[ſ]` also accepts "s" as ICU's case closure does; larger ranges rely on
    /// the variant check at match time only.
    mutating func ignoreCase() {
        caseInsensitive = true
        var total = 0
        for range in ranges {
            total += Int(range.upperBound - range.lowerBound) + 1
            if total > 1_024 { return }
        }
        var variants: [ClosedRange<UInt32>] = []
        for range in ranges {
            for value in range {
                guard let scalar = Unicode.Scalar(value) else { continue }
                for variant in CaseVariants(scalar) { variants.append(variant...variant) }
            }
        }
        ranges.append(contentsOf: variants)
        normalize()
    }

    /// Sorts and merges the ranges so that membership is a binary search.
    mutating func normalize() {
        guard ranges.count > 1 else { return }
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var merged: [ClosedRange<UInt32>] = [ranges[0]]
        for range in ranges.dropFirst() {
            let last = merged[merged.count - 1]
            if range.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        ranges = merged
    }

    func contains(_ value: UInt32) -> Bool {
        var found = containsExactly(value)
        if !found && caseInsensitive, let scalar = Unicode.Scalar(value) {
            found = CaseVariants(scalar).contains { containsExactly($0) }
        }
        return found != negated
    }

    private func containsExactly(_ value: UInt32) -> Bool {
        var low = 0
        var high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].upperBound < value {
                low = mid + 1
            } else {
                high = mid
            }
        }
        if low < ranges.count && ranges[low].contains(value) { return true }
        guard !properties.isEmpty, let scalar = Unicode.Scalar(value) else { return false }
        return properties.contains { $0.matches(scalar) }
    }
}

/// The simple case forms of a scalar other than itself, used for case-insensitive membership.
struct CaseVariants: Sequence {
    private var values: [UInt32] = []

    init(_ scalar: Unicode.Scalar) {
        let properties = scalar.properties
        let lower = Self.single(properties.lowercaseMapping)
        let upper = Self.single(properties.uppercaseMapping)
        let title = Self.single(properties.titlecaseMapping)
        for candidate in [lower, upper, title, upper.flatMap { Self.single($0.properties.lowercaseMapping) }] {
            if let candidate, candidate != scalar, !values.contains(candidate.value) {
                values.append(candidate.value)
            }
        }
    }

    func makeIterator() -> IndexingIterator<[UInt32]> {
        values.makeIterator()
    }

    private static func single(_ mapping: String) -> Unicode.Scalar? {
        var iterator = mapping.unicodeScalars.makeIterator()
        guard let first = iterator.next(), iterator.next() == nil else { return nil }
        return first
    }
}

/// A Unicode property a class item can test, such as `\p{Lu}`, `\w` or `\s`.
enum ScalarProperty: Hashable, Sendable {
    /// General categories as a bit mask of `GeneralCategoryMask` bits.
    case categories(UInt32, negated: Bool)
    /// ICU's `\w`: alphabetic, marks, decimal digits, connector punctuation, ZWNJ and ZWJ.
    case word(negated: Bool)
    /// The Unicode White_Space property (ICU's `\s`).
    case whitespace(negated: Bool)
    case alphabetic(negated: Bool)
    /// ICU's `\h`: tab and space separators.
    case horizontalSpace(negated: Bool)
    /// ICU's `\v`: line feed, vertical tab, form feed, carriage return, NEL, LS and PS.
    case verticalSpace(negated: Bool)
    /// Every scalar (`\p{Any}`).
    case any(negated: Bool)

    func matches(_ scalar: Unicode.Scalar) -> Bool {
        switch self {
        case .categories(let mask, let negated):
            return (mask & GeneralCategoryMask.bit(scalar.properties.generalCategory) != 0) != negated
        case .word(let negated):
            return Self.isWord(scalar) != negated
        case .whitespace(let negated):
            return scalar.properties.isWhitespace != negated
        case .alphabetic(let negated):
            return scalar.properties.isAlphabetic != negated
        case .horizontalSpace(let negated):
            return (scalar.value == 0x09 || scalar.properties.generalCategory == .spaceSeparator) != negated
        case .verticalSpace(let negated):
            let value = scalar.value
            let vertical = (value >= 0x0A && value <= 0x0D) || value == 0x85 || value == 0x2028 || value == 0x2029
            return vertical != negated
        case .any(let negated):
            return !negated
        }
    }

    static func isWord(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x80 {
            return (value >= 0x30 && value <= 0x39) || (value >= 0x41 && value <= 0x5A)
                || (value >= 0x61 && value <= 0x7A) || value == 0x5F
        }
        if value == 0x200C || value == 0x200D { return true }
        let properties = scalar.properties
        if properties.isAlphabetic { return true }
        let bit = GeneralCategoryMask.bit(properties.generalCategory)
        return bit & (GeneralCategoryMask.mark | GeneralCategoryMask.decimalNumber | GeneralCategoryMask.connector) != 0
    }

    static func isWord(_ value: UInt32) -> Bool {
        guard let scalar = Unicode.Scalar(value) else { return false }
        return isWord(scalar)
    }
}
