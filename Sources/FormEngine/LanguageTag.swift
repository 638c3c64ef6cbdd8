/// BCP 47 language tags (RFC 5646), as definitions, `Accept-Language` and `?lang=` spell them.
public enum LanguageTag {
    /// The longest tag taken, in bytes: RFC 5646 asks room for 35 characters, real tags are shorter
    /// still, and a lookup shortens a tag one subtag at a time, at a cost that grows with the square
    /// of its length.
    public static let maximumLength = 64

    /// Whether `tag` is well-formed by RFC 5646's syntax, at most ``maximumLength`` bytes long: a language (`en`, `pt`, `zh-yue`), then an
    /// optional script (`Latn`), region (`BR`, `419`), variants, extensions, and a private use part
    /// (`x-...`, also alone). Registry contents are not checked, and grandfathered tags are refused.
    public static func isWellFormed(_ tag: String) -> Bool {
        let subtags = Array(tag.utf8).split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard tag.utf8.count <= maximumLength, !subtags.isEmpty,
              subtags.allSatisfy({ (1...8).contains($0.count) && $0.allSatisfy(isAlphanumeric) }) else { return false }
        if isSingleton(subtags[0], "x") { return subtags.count > 1 }
        let language = subtags[0]
        guard language.allSatisfy(isLetter), language.count >= 2 else { return false }
        var i = 1
        if language.count <= 3 {
            // Up to three extended language subtags (`zh-yue`).
            var extlangs = 0
            while i < subtags.count, extlangs < 3, subtags[i].count == 3, subtags[i].allSatisfy(isLetter) { i += 1; extlangs += 1 }
        }
        if i < subtags.count, subtags[i].count == 4, subtags[i].allSatisfy(isLetter) { i += 1 }
        if i < subtags.count, (subtags[i].count == 2 && subtags[i].allSatisfy(isLetter)) || (subtags[i].count == 3 && subtags[i].allSatisfy(isDigit)) {
            i += 1
        }
        while i < subtags.count, subtags[i].count >= 5 || (subtags[i].count == 4 && isDigit(subtags[i].first!)) { i += 1 }
        while i < subtags.count, subtags[i].count == 1, !isSingleton(subtags[i], "x") {
            // An extension: its singleton, then one or more subtags of two to eight characters.
            i += 1
            let start = i
            while i < subtags.count, subtags[i].count >= 2 { i += 1 }
            if i == start { return false }
        }
        if i < subtags.count, isSingleton(subtags[i], "x") { return subtags.count > i + 1 }
        return i == subtags.count
    }

    /// Whether two tags are the same: tags do not depend on letter case (`pt-br` is `pt-BR`).
    public static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.lowercased() == b.lowercased()
    }

    private static func isSingleton(_ subtag: ArraySlice<UInt8>, _ letter: Unicode.Scalar) -> Bool {
        subtag.count == 1 && subtag.first! | 0x20 == UInt8(ascii: letter)
    }

    static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    static func isAlphanumeric(_ b: UInt8) -> Bool { isLetter(b) || isDigit(b) }
}
