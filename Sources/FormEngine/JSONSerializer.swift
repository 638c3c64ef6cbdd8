extension JSONValue {
    /// Compact UTF-8 JSON, deterministic (key order preserved). Integral doubles print without ".0";
    /// non-finite numbers, which JSON cannot express, print as null.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out)
        return out
    }

    /// Appends the compact serialization to `out`.
    public func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): Self.writeNumber(n, to: &out)
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// The number as JSON text: integral values without a fraction or exponent (as JavaScript prints
    /// them below 1e21, so `1e15` stays `1000000000000000` and counts no decimal places), others in
    /// shortest round-trip form.
    static func numberText(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        // 2^63 is exactly representable, so the bound itself never traps the conversion.
        if n == n.rounded(.towardZero), abs(n) < 9.223_372_036_854_775_808e18 {
            return String(Int64(n))
        }
        return n.description
    }

    private static func writeNumber(_ n: Double, to out: inout [UInt8]) {
        out.append(contentsOf: numberText(n).utf8)
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            // Copies runs of bytes that need no escape in one go; most strings are a single run.
            var runStart = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                runStart = index + 1
                out.append(0x5C)
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "t"))
                default:
                    out.append(UInt8(ascii: "u"))
                    out.append(UInt8(ascii: "0"))
                    out.append(UInt8(ascii: "0"))
                    out.append(hex[Int(byte >> 4)])
                    out.append(hex[Int(byte & 0xF)])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
        out.append(UInt8(ascii: "\""))
    }
}
