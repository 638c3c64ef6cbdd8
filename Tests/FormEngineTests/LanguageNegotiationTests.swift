import Testing
@testable import FormEngine

@Suite struct LanguageNegotiationTests {
    static let offered = ["en", "pt-BR", "es"]

    @Test(arguments: [
        ("pt-BR", "pt-BR"),
        ("pt-br", "pt-BR"),
        ("pt-BR;q=0.9, es;q=0.8", "pt-BR"),
        ("es;q=0.8, pt-BR;q=0.9", "pt-BR"),
        ("es-MX", "es"),
        ("es-419", "es"),
        ("zh-Hant-CN-x-private1, es", "es"),
        ("fr", nil),
        ("fr, es;q=0.1", "es"),
        ("*", "en"),
        ("fr, *;q=0.5", "en"),
        ("en;q=0, *", "pt-BR"),
        ("es;q=0, es-MX", nil),
        ("pt", nil),
        ("", nil),
        ("pt-BR;q=2, es", "es"),
        ("pt-BR;q=0.1234, es", "es"),
        ("pt-BR;x=1, es", "es"),
        (";;;, ,, es-MX ; q=0.5", "es"),
        ("1234, es", "es"),
        ("pt-BR;q=1.000, es", "pt-BR"),
        ("es;q=0.5, pt-BR;q=0.5", "es"),
    ] as [(String, String?)])
    func lookup(_ header: String, _ expected: String?) {
        #expect(LanguagePriorityList(acceptLanguage: header).lookup(Self.offered) == expected, "\(header)")
    }

    @Test func weightsOrderTheRanges() {
        let list = LanguagePriorityList(acceptLanguage: "fr;q=0.3, de, es;q=0.7, it;q=0")
        #expect(list.ranges == ["de", "es", "fr"])
        #expect(list.refused == ["it"])
    }

    /// A hostile header of thousands of items is read as a browser's: at most 32, each range once.
    @Test func aHugeHeaderIsReadOnlyInPart() {
        let header = Array(repeating: "en", count: 10_000).joined(separator: ",") + "," + (0..<5_000).map { "x\($0 % 9);q=0" }.joined(separator: ",")
        let list = LanguagePriorityList(acceptLanguage: header)
        #expect(list.ranges == ["en"])
        #expect(list.refused.isEmpty)
        let many = LanguagePriorityList(acceptLanguage: (0..<100).map { "x-\($0)" }.joined(separator: ", ") + ", es")
        #expect(many.ranges.count == LanguagePriorityList.maxItems && !many.ranges.contains("es"))
    }

    /// One range of thousands of subtags would cost its length squared to look up: it is not read.
    @Test func aHugeRangeIsIgnored() {
        let huge = "es-" + Array(repeating: "a", count: 20_000).joined(separator: "-")
        #expect(LanguagePriorityList(acceptLanguage: huge + ", pt").ranges == ["pt"])
        #expect(LanguagePriorityList([huge]).ranges.isEmpty)
        let longest = "es-" + Array(repeating: "abcdefg", count: 7).joined(separator: "-") + "-abcde"
        #expect(longest.utf8.count == LanguagePriorityList.maxRangeBytes)
        #expect(LanguagePriorityList(acceptLanguage: longest).lookup(Self.offered) == "es")
    }

    @Test func aSingleRangeAsLangGivesIt() {
        #expect(LanguagePriorityList(["es-MX"]).lookup(Self.offered) == "es")
        #expect(LanguagePriorityList().lookup(Self.offered) == nil)
    }

    @Test(arguments: ["en", "pt-BR", "es-419", "zh-Hant-CN", "zh-yue-HK", "sl-rozaj-biske", "de-CH-1901", "en-US-u-islamcal",
                      "x-whatever", "en-x-a-b", "sr-Latn-RS", "EN-us", "qaa-Qaaa-QM-x-southern"])
    func wellFormedTags(_ tag: String) {
        #expect(LanguageTag.isWellFormed(tag), "\(tag)")
    }

    @Test(arguments: ["", "e", "en-", "-en", "en--US", "english-language-too", "en-US-u", "1en", "en_US", "pt-BR ", "x",
                      "en-x", "en-a-b-x", "toolongtag", "en-ÜS", "*"])
    func malformedTags(_ tag: String) {
        #expect(!LanguageTag.isWellFormed(tag), "\(tag)")
    }

    /// A tag a form may carry is one a request can ask for: both stop at 64 bytes.
    @Test func tagsStopAt64Bytes() {
        let longest = "en-x-" + Array(repeating: "abcdefgh", count: 6).joined(separator: "-") + "-abcde"
        #expect(longest.utf8.count == LanguageTag.maximumLength && LanguageTag.isWellFormed(longest))
        #expect(!LanguageTag.isWellFormed(longest + "f"))
        #expect(LanguagePriorityList(acceptLanguage: longest).lookup([longest]) == longest)
    }
}
