/// Formworks' default rules (its `FWRegex` enum), verbatim, with its messages.
enum FormworksRegex {
    static let email = "[0-9a-z._%+-]+@[a-z0-9.-]+\\.[a-z]{2,64}"
    static let phonenumber = #"\(?\b([0-9]{2,3}|0((x|[0-9]){2,3}[0-9]{2}))\)?\s*[0-9]{4,5}[- ]*[0-9]{4}\b"#
    static let max32 = "[A-Za-z0-9 !\"#$%&'()*+,-./:;<=>?@\\[\\\\\\]^_`{|}~]{0,32}"
    static let numerical = "[0-9]+"
    /// The US phone format `ddd-ddd-dddd` of the extension type `usphone`.
    static let usphone = "[0-9]{3}-[0-9]{3}-[0-9]{4}"

    /// `email`, matched by hand: exactly the language of `email`, without running a regex.
    /// The local part's class has no `@`, so the first `@` splits; the TLD class has no `.`, so the
    /// last dot of the domain is the one the pattern's `\.` must take.
    static func matchesEmail(_ s: String) -> Bool {
        var utf8 = s.utf8.makeIterator()
        var local = 0
        var sawAt = false
        while let b = utf8.next() {
            if b == UInt8(ascii: "@") { sawAt = true; break }
            guard isLocal(b) else { return false }
            local += 1
        }
        guard sawAt, local > 0 else { return false }
        var domain = 0
        var tld = 0
        var sawDot = false
        var beforeLastDot = 0
        while let b = utf8.next() {
            if b == UInt8(ascii: ".") {
                sawDot = true
                beforeLastDot = domain
                tld = 0
            } else if b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z") {
                tld += 1
            } else if isDigit(b) || b == UInt8(ascii: "-") {
                tld = -1_000_000
            } else {
                return false
            }
            domain += 1
        }
        return sawDot && beforeLastDot > 0 && tld >= 2 && tld <= 64
    }

    /// `numerical` (`[0-9]+`), matched by hand.
    static func matchesNumerical(_ s: String) -> Bool {
        var any = false
        for b in s.utf8 {
            guard isDigit(b) else { return false }
            any = true
        }
        return any
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    private static func isLocal(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "%"), UInt8(ascii: "+"), UInt8(ascii: "-"):
            true
        default: false
        }
    }
}
