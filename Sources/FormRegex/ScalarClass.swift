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
