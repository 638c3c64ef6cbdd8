/// The value checks of the extension types, on bytes, without regexes.
enum ValueRules {
    enum WholeNumber: Equatable {
        case value(Int)
        /// Well formed, but with more significant digits than any exact whole number has.
        case tooLarge
        case invalid
    }

    /// An optional sign, then one or more ASCII digits, as Swift's `Int()` reads them, but with any
    /// number of leading zeros: `"0000000000000000000000042"` is 42, where a length check before
    /// parsing refused it.
    static func wholeNumber(_ s: String) -> WholeNumber {
        var magnitude = 0
        var significant = 0
        var sawDigit = false
        var negative = false
        for (i, b) in s.utf8.enumerated() {
            if i == 0, b == UInt8(ascii: "+") || b == UInt8(ascii: "-") {
                negative = b == UInt8(ascii: "-")
                continue
            }
            guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return .invalid }
            sawDigit = true
            if significant == 0, b == UInt8(ascii: "0") { continue }
            significant += 1
            // 18 digits always fit an Int; past them the value is out of any exact range anyway.
            if significant <= 18 { magnitude = magnitude * 10 + Int(b - UInt8(ascii: "0")) }
        }
        guard sawDigit else { return .invalid }
        if significant > 18 { return .tooLarge }
        return .value(negative ? -magnitude : magnitude)
    }

    /// A decimal: optional sign, digits, optionally a point and digits. Returns the value and the
    /// number of digits after the point that matter: trailing zeros do not, so "1.10" has one, as the
    /// JSON number 1.10 has.
    static func decimal(_ s: String) -> (value: Double, places: Int)? {
        var places = 0
        var trailingZeros = 0
        var digitsBefore = 0
        var seenPoint = false
        for (i, b) in s.utf8.enumerated() {
            switch b {
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                if i != 0 { return nil }
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if seenPoint {
                    places += 1
                    trailingZeros = b == UInt8(ascii: "0") ? trailingZeros + 1 : 0
                } else {
                    digitsBefore += 1
                }
            case UInt8(ascii: "."):
                if seenPoint { return nil }
                seenPoint = true
            default:
                return nil
            }
        }
        guard digitsBefore > 0, !seenPoint || places > 0, let value = Double(s), value.isFinite else { return nil }
        return (value, places - trailingZeros)
    }

    /// Whether decimal text is the number a `Double` stores and serves for it, so that comparing and
    /// storing the `Double` is exact: `"0.1"` is (it is written back as `0.1`), while
    /// `"0.99999999999999999"` (stored as `1`) and `"9007199254740993"` (as `…992`) are not.
    static func isExact(_ s: String, _ value: Double) -> Bool {
        decimalDigits(s) == decimalDigits(JSONValue.numberText(value))
    }

    /// A number's text as its significant digits and the power of ten of the first one's place
    /// (`"12.50"` and `"1.25e1"` → ("125", 2)); zero is ("", 0) whatever its sign.
    static func decimalDigits(_ text: String) -> (negative: Bool, digits: [UInt8], point: Int) {
        var negative = false
        var digits: [UInt8] = []
        var point = 0
        var seenPoint = false
        var exponent = 0
        var exponentSign = 1
        var inExponent = false
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "-") where inExponent: exponentSign = -1
            case UInt8(ascii: "-"): negative = true
            case UInt8(ascii: "+"): break
            case UInt8(ascii: "."): seenPoint = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"): inExponent = true
            case UInt8(ascii: "0")...UInt8(ascii: "9") where inExponent:
                exponent = min(exponent * 10 + Int(b - UInt8(ascii: "0")), 100_000)
            default:
                // Leading zeros only move the place of the first significant digit.
                if digits.isEmpty && b == UInt8(ascii: "0") {
                    if seenPoint { point -= 1 }
                    continue
                }
                digits.append(b)
                if !seenPoint { point += 1 }
            }
        }
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        if digits.isEmpty { return (false, [], 0) }
        return (negative, digits, point + exponentSign * exponent)
    }

    /// Digits after the point in a JSON number's shortest form (`1.25` → 2, `1e-7` → 7).
    static func decimalPlaces(_ n: Double) -> Int {
        let number = decimalDigits(JSONValue.numberText(n))
        return max(0, number.digits.count - number.point)
    }

    /// `YYYY-MM-DD`, a real calendar date (leap years included).
    static func isDate(_ s: String) -> Bool {
        guard s.utf8.count == 10 else { return false }
        return s.utf8.withContiguousStorageIfAvailable(isDate) ?? Array(s.utf8).withUnsafeBufferPointer(isDate)
    }

    private static func isDate(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-") else { return false }
        func number(_ range: Range<Int>) -> Int? {
            var n = 0
            for i in range {
                guard b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") else { return nil }
                n = n * 10 + Int(b[i] - UInt8(ascii: "0"))
            }
            return n
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              (1...12).contains(month), day >= 1 else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = switch month {
        case 2: leap ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
        return day <= days
    }

    /// `ddd-ddd-dddd`.
    static func isUSPhone(_ s: String) -> Bool {
        var count = 0
        for b in s.utf8 {
            if count == 3 || count == 7 {
                guard b == UInt8(ascii: "-") else { return false }
            } else {
                guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return false }
            }
            count += 1
            if count > 12 { return false }
        }
        return count == 12
    }

    /// Characters as a person sees them (grapheme clusters), counting no further than `limit + 1`.
    static func length(_ s: String, limit: Int) -> Int {
        let bytes = s.utf8.count
        // ASCII is one character per byte, except CR LF, which is one grapheme.
        if bytes <= limit, s.utf8.allSatisfy({ $0 < 0x80 && $0 != 13 }) { return bytes }
        var n = 0
        for _ in s {
            n += 1
            if n > limit { break }
        }
        return n
    }
}
