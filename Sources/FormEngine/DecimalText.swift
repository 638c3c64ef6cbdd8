/// A number written in decimal text, `-012.50`, read exactly: any number of digits, compared
/// without rounding (a 19-digit card number against a 19-digit bound, where a `Double` keeps 15).
struct DecimalText: Comparable {
    var negative: Bool
    /// The digits before the point, leading zeros removed.
    var whole: [UInt8]
    /// The digits after the point, trailing zeros removed.
    var fraction: [UInt8]

    /// Optional `-` or `+`, digits, then optionally `.` and digits (at least one digit on each side
    /// of a point). Nothing else: no spaces, exponents, `0x` or `inf`.
    init?(_ text: String) {
        var bytes = Substring(text).utf8[...]
        var sign = false
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            sign = first == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        let point = bytes.firstIndex(of: UInt8(ascii: "."))
        let wholePart = bytes[..<(point ?? bytes.endIndex)]
        let fractionPart = point.map { bytes[bytes.index(after: $0)...] }
        guard !wholePart.isEmpty, wholePart.allSatisfy(Self.isDigit) else { return nil }
        if let fractionPart, fractionPart.isEmpty || !fractionPart.allSatisfy(Self.isDigit) { return nil }
        whole = Array(wholePart.drop { $0 == UInt8(ascii: "0") })
        var digits = fractionPart.map { Array($0) } ?? []
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        fraction = digits
        negative = sign && !(whole.isEmpty && fraction.isEmpty)
    }

    /// A JSON number as its shortest text (`JSONValue.numberText`), which is how a definition's
    /// bounds read: `1e+25` is written out in digits.
    init?(_ number: Double) {
        guard number.isFinite else { return nil }
        let (negative, digits, point) = ValueRules.decimalDigits(JSONValue.numberText(number))
        let zero = UInt8(ascii: "0")
        if point <= 0 {
            whole = []
            fraction = Array(repeating: zero, count: -point) + digits
        } else if point >= digits.count {
            whole = digits + Array(repeating: zero, count: point - digits.count)
            fraction = []
        } else {
            whole = Array(digits[..<point])
            fraction = Array(digits[point...])
        }
        self.negative = negative
    }

    private static func isDigit(_ b: UInt8) -> Bool {
        b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")
    }

    /// The canonical text: no leading or trailing zeros, `-` only when not zero (`-012.50` → `-12.5`).
    var text: String {
        var bytes: [UInt8] = negative ? [UInt8(ascii: "-")] : []
        bytes += whole.isEmpty ? [UInt8(ascii: "0")] : whole
        if !fraction.isEmpty { bytes += [UInt8(ascii: ".")] + fraction }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func < (a: DecimalText, b: DecimalText) -> Bool {
        if a.negative != b.negative { return a.negative }
        return a.negative ? magnitudeLess(b, a) : magnitudeLess(a, b)
    }

    private static func magnitudeLess(_ a: DecimalText, _ b: DecimalText) -> Bool {
        if a.whole.count != b.whole.count { return a.whole.count < b.whole.count }
        if a.whole != b.whole { return a.whole.lexicographicallyPrecedes(b.whole) }
        return a.fraction.lexicographicallyPrecedes(b.fraction)
    }
}
