import Testing
import FormRegex

/// Asserts that `pattern` compiles and matches exactly the strings in `yes` and none in `no`, and
/// that ICU agrees on each of them.
private func check(_ pattern: String, caseInsensitive: Bool = false, yes: [String], no: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let compiled = try Pattern(pattern, caseInsensitive: caseInsensitive)
    for (strings, expected) in [(yes, true), (no, false)] {
        for string in strings {
            #expect(compiled.matches(string) == expected, "\(compiled) on \(string.debugDescription)", sourceLocation: sourceLocation)
            let icu = try Reference.matches(pattern, string, caseInsensitive: caseInsensitive)
            #expect(icu == expected, "ICU differs: \(compiled) on \(string.debugDescription)", sourceLocation: sourceLocation)
        }
    }
}

@Suite struct SyntaxTests {
    @Test func literalsMatchTheWholeStringOnly() throws {
        try check("abc", yes: ["abc"], no: ["xabc", "abcx", "ab", "", "ABC"])
        try check("", yes: [""], no: ["a"])
    }

    @Test func dotMatchesAnyScalarButLineTerminators() throws {
        try check("a.c", yes: ["abc", "a c", "a.c", "aéc", "a😀c"], no: ["a\nc", "a\rc", "ac", "a\u{2028}c"])
        try check("(?s)a.c", yes: ["a\nc", "abc"], no: ["ac"])
    }

    @Test func classEscapes() throws {
        try check(#"\d+"#, yes: ["0123456789", "٣"], no: ["a", "", "1a"])
        try check(#"\D"#, yes: ["a", "-"], no: ["1"])
        try check(#"\w+"#, yes: ["abc_123", "é"], no: ["a-b", " "])
        try check(#"\W"#, yes: ["-", " "], no: ["a", "_"])
        try check(#"\s"#, yes: [" ", "\t", "\n", "\u{A0}", "\u{0B}"], no: ["a"])
        try check(#"\S"#, yes: ["a"], no: [" "])
        try check(#"\h\v"#, yes: [" \n", "\t\r"], no: ["\n ", "  "])
    }

    @Test func escapedLiterals() throws {
        try check(#"\.\\\-\+\(\)\[\]\{\}\*\?\|\^\$/"#, yes: [#".\-+()[]{}*?|^$/"#], no: ["a"])
        try check(#"\t\n\r\f\a\e"#, yes: ["\t\n\r\u{0C}\u{07}\u{1B}"], no: [])
        try check(#"\u00e9\x41\x{1F600}\0101\cA"#, yes: ["éA😀A\u{01}"], no: ["eA😀A\u{01}"])
        try check(#"\Qa.b*\E+"#, yes: ["a.b*", "a.b**"], no: ["axb"])
    }

    @Test func bracketExpressions() throws {
        try check("[a-z0-9._%+-]+", yes: ["abc.def%+-_", "x"], no: ["ABC", "a b", ""])
        try check("[^a-c]", yes: ["d", "é", "\n"], no: ["a", "b", "c"])
        try check(#"[\d\s]+"#, yes: ["1 2"], no: ["a"])
        try check(#"[\]\\\-]"#, yes: ["]", "\\", "-"], no: ["a"])
        try check("[]a]", yes: ["]", "a"], no: ["b"])
        try check("[-a][a-]", yes: ["--", "aa"], no: ["b-"])
        try check(#"[\x41-\x43]"#, yes: ["A", "C"], no: ["D"])
        try check(#"[\w-z]"#, yes: ["-", "a"], no: ["!"])
        try check(#"[^\d]"#, yes: ["a"], no: ["5"])
    }

    @Test func unicodeProperties() throws {
        try check(#"\p{L}+"#, yes: ["abcÉé", "日本"], no: ["a1"])
        try check(#"\p{Lu}\p{Ll}"#, yes: ["Ab", "Éé"], no: ["ab", "AB"])
        try check(#"\p{N}+"#, yes: ["123", "½"], no: ["a"])
        try check(#"\P{L}"#, yes: ["1"], no: ["a"])
        try check(#"[\p{Lu}\d]+"#, yes: ["A1B2"], no: ["a"])
    }

    @Test func groupsAndAlternation() throws {
        try check("(ab)+", yes: ["ab", "abab"], no: ["", "aba"])
        try check("(?:ab|cd)*e", yes: ["e", "abcde", "cdabe"], no: ["abc", "ace"])
        try check("(?<word>ab)c", yes: ["abc"], no: ["ab"])
        try check("a|b|", yes: ["a", "b", ""], no: ["ab"])
        try check("(?#comment)ab", yes: ["ab"], no: ["a"])
        try check("()", yes: [""], no: ["a"])
    }

    @Test func quantifiers() throws {
        try check("a*", yes: ["", "aaaa"], no: ["b"])
        try check("a+", yes: ["a", "aa"], no: [""])
        try check("ab?c", yes: ["ac", "abc"], no: ["abbc"])
        try check("a{3}", yes: ["aaa"], no: ["aa", "aaaa"])
        try check("a{2,}", yes: ["aa", "aaaaaaa"], no: ["a"])
        try check("a{2,4}", yes: ["aa", "aaa", "aaaa"], no: ["a", "aaaaa"])
        try check("a{0}b", yes: ["b"], no: ["ab"])
        try check("a*?b+?c??d{1,2}?", yes: ["abd", "bbcdd", "bd"], no: ["ad"])
        try check("(a*)*b", yes: ["b", "aab"], no: ["aa"])
    }

    @Test func anchors() throws {
        try check("^abc$", yes: ["abc"], no: ["abcd"])
        try check(#"\Aabc\z"#, yes: ["abc"], no: ["abc\n"])
        try check(#"abc\Z"#, yes: ["abc"], no: ["abc\n"])
        try check("a^b", yes: [], no: ["ab", "a^b"])
        try check("a$b", yes: [], no: ["ab"])
        try check("(^a|b)+", yes: ["a", "ab", "abb", "b"], no: ["ba"])
    }

    /// ICU's `$` and `\Z` also hold before a line terminator that ends the input (not inside a
    /// final CRLF); for a whole match, the pattern must then consume that terminator.
    @Test func dollarBeforeAFinalLineTerminator() throws {
        try check(#"a$\n"#, yes: ["a\n"], no: ["a", "a\n\n"])
        try check(#"a\Z\s*"#, yes: ["a", "a\n", "a\r\n", "a\u{2028}", "a\u{85}", "a\u{0B}"], no: ["a\n\n", "a \n"])
        try check(#"a\z\s*"#, yes: ["a"], no: ["a\n"])
        try check(#"a$\r\n"#, yes: ["a\r\n"], no: [])
        try check(#"a\r$\n"#, yes: [], no: ["a\r\n"])
        try check(#"$\n"#, yes: ["\n"], no: ["", "\n\n"])
        try check(#"(?:a$\n|b)+"#, yes: ["a\n", "ba\n", "bb"], no: ["a\nb", "a\na\n"])
        try check(#"\w+$[\s\S]"#, yes: ["héllo\n", "日本\u{2029}"], no: ["héllo\nx", "héllo"])
    }

    @Test func wordBoundaries() throws {
        try check(#"\bab\b"#, yes: ["ab"], no: [])
        try check(#"a\b b"#, yes: ["a b"], no: [])
        try check(#"a\bb"#, yes: [], no: ["ab"])
        try check(#"a\Bb"#, yes: ["ab"], no: [])
        try check(#"a \B b"#, yes: ["a  b"], no: ["a b"])
        try check(#"\(?\b12"#, yes: ["12"], no: ["(12x"])
        try check(#"\b"#, yes: [], no: [""])
        try check(#"\B"#, yes: [""], no: [])
    }

    /// ICU skips combining marks and format characters (ZWJ, soft hyphen) around a boundary.
    @Test func wordBoundariesSkipCombiningAndFormatScalars() throws {
        try check(#"-\b\x{301}"#, yes: [], no: ["-\u{301}"])
        try check(#"-\B\x{301}"#, yes: ["-\u{301}"], no: [])
        try check(#"\x{301}\b-"#, yes: [], no: ["\u{301}-"])
        try check(#"a\x{301}\b-"#, yes: ["a\u{301}-"], no: [])
        try check(#"a\x{200D}\b-"#, yes: ["a\u{200D}-"], no: [])
        try check(#"a\b\x{AD}"#, yes: [], no: ["a\u{AD}"])
        try check(#"\x{301}\b"#, yes: [], no: ["\u{301}"])
        try check(#".*\bx\b.*"#, yes: ["a x b", "é\u{301} x"], no: ["ax", "a\u{301}x"])
    }

    @Test func inlineFlags() throws {
        try check("(?i)abc", yes: ["ABC", "aBc"], no: ["abd"])
        try check("a(?i)bc", yes: ["aBC"], no: ["ABC"])
        try check("(?i:a)b", yes: ["Ab"], no: ["AB"])
        try check("(a(?i)b)c", yes: ["aBc"], no: ["aBC"])
        try check("(?i)a(?-i)b", yes: ["Ab"], no: ["AB"])
    }

    @Test func octalEscapesStopAt0377() throws {
        // ICU reads \0777 as \077 ('?') followed by a literal '7'.
        try check(#"\0777"#, yes: ["?7"], no: ["\u{1FF}"])
        try check(#"\0101"#, yes: ["A"], no: [])
    }

    /// With 63 classes the two wordness bits of a scalar's signature straddle two words.
    @Test func wordBoundariesWithSixtyThreeClasses() throws {
        let others = (Array("bcdefghijklmnopqrstuvwxyz") + Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + Array("0123456789")).map(String.init)
        try check(#"a\b."# + "|" + others.joined(separator: "|"), yes: ["a-", "b"], no: ["a\u{AD}", "ab"])
    }

    /// A repeated empty group emits nothing; nested, it would otherwise take time to the power of its depth.
    @Test func repeatedEmptyGroupsCompileAtOnce() throws {
        try check("(?:(?:){1000}){1000}", yes: [""], no: ["x"])
        // ICU gives up on four levels (no match even for ""), so only this engine is asked.
        let deep = try Pattern("(?:(?:(?:(?:){1000}){1000}){1000}){1000}")
        #expect(deep.matches("") && !deep.matches("x"))
        try check("a(?:){5}b", yes: ["ab"], no: ["a", "b"])
    }

    @Test func lineBreakEscape() throws {
        try check(#"a\Rb"#, yes: ["a\r\nb", "a\nb", "a\rb"], no: ["ab", "a\n\nb"])
    }
}

@Suite struct CaseInsensitiveTests {
    @Test func literalsAndClassesIgnoreCase() throws {
        try check("hello", caseInsensitive: true, yes: ["HELLO", "hElLo"], no: ["help"])
        try check("[a-z]+", caseInsensitive: true, yes: ["ABCxyz"], no: ["A1"])
        try check("[^a-z]", caseInsensitive: true, yes: ["1"], no: ["A", "a"])
        try check("é", caseInsensitive: true, yes: ["É", "é"], no: ["e"])
        try check("straße", caseInsensitive: true, yes: ["STRAßE"], no: [])
        try check("k", caseInsensitive: true, yes: ["K", "\u{212A}"], no: [])
        try check("[a-z]", caseInsensitive: true, yes: ["\u{017F}"], no: [])
        try check("[\u{017F}]", caseInsensitive: true, yes: ["s", "S"], no: ["t"])
        try check("[\u{212A}]", caseInsensitive: true, yes: ["k", "K"], no: [])
        try check("\\p{Lu}", caseInsensitive: true, yes: ["a", "A"], no: ["1"])
    }

    @Test func equalityIncludesTheFlag() throws {
        #expect(try Pattern("a") == Pattern("a"))
        #expect(try Pattern("a") != Pattern("a", caseInsensitive: true))
        #expect(try Pattern("a", caseInsensitive: true).description == "/a/i")
        #expect(try Pattern("a+").source == "a+")
    }
}

@Suite struct UnicodeTests {
    @Test func scalarsNotGraphemes() throws {
        try check("caf.", yes: ["café", "cafe"], no: ["cafe\u{301}"])
        try check("caf..", yes: ["cafe\u{301}"], no: ["café"])
        try check(".", yes: ["😀", "日"], no: ["👍🏽", ""])
        try check("..", yes: ["👍🏽"], no: [])
        try check("😀+", yes: ["😀😀😀"], no: ["😀😁"])
        try check("[😀-😂]", yes: ["😁"], no: ["😃"])
    }

    @Test func scriptsBeyondLatin() throws {
        try check(#"\p{L}+(?: \p{L}+)*"#, yes: ["Мария Иванова", "Αλέξανδρος", "王小明", "João"], no: ["Мария  Иванова", "R2"])
        try check(#"\bМария\b.*"#, yes: ["Мария!", "Мария Иванова"], no: ["Марияж"])
        try check("σ+", caseInsensitive: true, yes: ["Σσ", "σς"], no: ["s"])
        try check("[^a]+", yes: ["日本😀Ж"], no: ["日a"])
        try check(#"\w+"#, yes: ["日本語", "Ж"], no: ["😀"])
    }

    @Test func substringsUseTheirOwnBounds() throws {
        let pattern = try Pattern(#"^\d+$"#)
        let text = "id=12345;"
        let digits = text.dropFirst(3).dropLast()
        #expect(pattern.matches(digits))
        #expect(!pattern.matches(text.dropFirst(2)))
        #expect(try Pattern("é+").matches("xéé".dropFirst()))
    }

    @Test func longNonASCIIInput() throws {
        let pattern = try Pattern(#"[\p{L} ]{1,200}"#)
        #expect(pattern.matches(String(repeating: "é ü", count: 60)))
        #expect(!pattern.matches(String(repeating: "é ü", count: 70)))
    }
}

@Suite struct CatastrophicPatternTests {
    static let hostile = String(repeating: "a", count: 5_000) + "!"

    @Test(arguments: ["(a+)+$", "(a|aa)*b", "(.*a){20}", "(a*)*", "(a|a)*", "(\\w+\\s?)*$", "^(a+)+$", "(x+x+)+y"])
    func returnsFalseOnHostileInput(pattern: String) throws {
        let compiled = try Pattern(pattern)
        #expect(!compiled.matches(Self.hostile))
    }

    @Test func stillMatchesWhatItShould() throws {
        #expect(try Pattern("(a+)+$").matches(String(repeating: "a", count: 5_000)))
        #expect(try Pattern("(.*a){20}").matches(String(repeating: "a", count: 5_000)))
        #expect(try Pattern("(a|aa)*b").matches(String(repeating: "a", count: 5_000) + "b"))
    }

    @Test func exponentialDFAFallsBackToNFASteps() throws {
        // The DFA for "the 20th scalar from the end is a" has 2^20 states: construction stops at its
        // budget and matching continues with NFA steps.
        let pattern = try Pattern("[ab]*a[ab]{20}")
        var text = ""
        for index in 0..<3_000 { text.append(index % 7 == 0 ? "a" : "b") }
        let expected = Array(text)[text.count - 21] == "a"
        #expect(pattern.matches(text) == expected)
        #expect(pattern.matches(text + "a" + String(repeating: "b", count: 20)))
        #expect(!pattern.matches(text + "b" + String(repeating: "b", count: 20)))
    }
}

extension CatastrophicPatternTests {
    /// Large closures exhaust the construction budget after a few hundred states: inputs that end in
    /// states left unexplored, or run past them, must still get the right answer.
    @Test func workBudgetBoundConstructionStaysCorrect() throws {
        let pattern = try Pattern("(?:.?){150}a(?:.?){150}")
        #expect(pattern.compiledStateCount < 4_096)
        // The explored states reach about 30 scalars deep; the rest needs NFA steps.
        for count in Array(0...45) + [149, 150, 151, 160] {
            let prefix = String(repeating: "x", count: count)
            #expect(pattern.matches(prefix + "a") == (count <= 150), "\(count)")
            #expect(pattern.matches("a" + prefix) == (count <= 150), "\(count)")
            #expect(pattern.matches(String(prefix.prefix(count / 2)) + "a" + String(prefix.prefix(count - count / 2))))
            #expect(!pattern.matches(prefix))
        }
    }
}

@Suite struct RejectionTests {
    static let cases: [(pattern: String, offset: Int, mentions: String)] = [
        (#"(a)\1"#, 3, "Backreferences"),
        (#"(?<n>a)\k<n>"#, 7, "backreferences"),
        ("a(?=b)", 1, "Lookahead"),
        ("a(?!b)", 1, "Lookahead"),
        ("(?<=a)b", 0, "Lookbehind"),
        ("(?<!a)b", 0, "Lookbehind"),
        ("(?>a)", 0, "Atomic"),
        ("a*+a", 2, "Possessive"),
        ("a{1,1001}", 1, "1000"),
        ("a{3,2}", 1, "minimum"),
        ("a{", 1, "interval"),
        ("a{,3}", 1, "interval"),
        ("a}", 1, "}"),
        ("*a", 0, "nothing to repeat"),
        ("a**", 2, "another quantifier"),
        ("(ab", 0, "Unterminated group"),
        ("ab)", 2, "Unmatched"),
        ("[ab", 0, "Unterminated bracket"),
        ("[z-a]", 2, "out of order"),
        ("[[a]]", 1, "Nested"),
        ("[a&&b]", 2, "intersection"),
        ("ab\\", 2, "backslash"),
        ("(?m)^a", 2, "flag"),
        ("(?x)a", 2, "flag"),
        (#"\p{Nope}"#, 0, "Unknown property"),
        (#"\X"#, 0, "Grapheme"),
        (#"a\pL"#, 1, "braces"),
        (#"\p{^L}"#, 0, "Unknown property"),
        (#"\N{LATIN SMALL LETTER A}"#, 0, "Named characters"),
        (#"[\b]"#, 1, "assertion"),
        (#"\x{110000}"#, 0, "not a Unicode scalar"),
        (#"\u12"#, 0, "hex"),
        ("é(?=b)", 1, "Lookahead"),
        ("(a{1000}){1000}", 9, "too large"),
    ]

    @Test(arguments: cases.indices)
    func rejectsWithOffsetAndMessage(index: Int) {
        let expected = Self.cases[index]
        #expect {
            _ = try Pattern(expected.pattern)
        } throws: { error in
            guard let error = error as? PatternError else { return false }
            return error.offset == expected.offset && error.message.lowercased().contains(expected.mentions.lowercased())
                && error.message.hasSuffix(".")
        }
    }

    @Test func rejectsDeepNesting() throws {
        let deep = String(repeating: "(", count: 101) + "a" + String(repeating: ")", count: 101)
        #expect(throws: PatternError.self) { try Pattern(deep) }
        let fine = String(repeating: "(", count: 100) + "a" + String(repeating: ")", count: 100)
        #expect(try Pattern(fine).matches("a"))
    }

    @Test func rejectsLongPatterns() throws {
        #expect(throws: PatternError(offset: 2_000, message: "The pattern is longer than 2000 characters; shorten it.", kind: .limit)) {
            try Pattern(String(repeating: "a", count: 2_001))
        }
        #expect(try Pattern(String(repeating: "a", count: 2_000)).matches(String(repeating: "a", count: 2_000)))
    }

    @Test func kindsAreStableCodes() {
        let expectations: [(String, PatternError.Kind)] = [("(a)\\1", .unsupported), ("a(?=b)", .unsupported), ("a**", .syntax),
                                                           ("[z-a]", .syntax), ("a{1001}", .limit), ("(a{1000}){1000}", .limit),
                                                           ("[:digit:]+", .unsupported), ("[^:alpha:]", .unsupported)]
        for (source, kind) in expectations {
            do {
                _ = try Pattern(source)
                Issue.record("\(source) should not compile")
            } catch {
                #expect(error.kind == kind, "\(source)")
                #expect(error.description.hasPrefix(kind.rawValue))
            }
        }
        #expect(PatternError.Kind.unsupported.rawValue == "regex.unsupported")
    }

    @Test func offsetsCountCharacters() {
        #expect(throws: PatternError.self) { try Pattern("e\u{301}(?=x)") }
        do {
            _ = try Pattern("e\u{301}(?=x)")
        } catch {
            #expect(error.offset == 1)
        }
    }
}

@Suite struct CompileBudgetTests {
    /// Patterns sharing a budget stop building DFA states once it and the guaranteed pool are spent,
    /// and still answer right.
    @Test func sharedBudgetBoundsManyLargePatterns() throws {
        let budget = CompileBudget(work: Pattern.maximumWork, guaranteedPool: 15_000)
        var patterns: [Pattern] = []
        for count in 1...8 {
            patterns.append(try Pattern("[ab]*a[ab]{20}|x{\(count)}", budget: budget))
        }
        // Each fills its 4,096 states with about 282,000 units: the fourth gets what is left.
        #expect(patterns.prefix(4).allSatisfy { $0.compiledStateCount > 2 })
        #expect(patterns.prefix(4).reduce(0) { $0 + $1.compileWork } >= Pattern.maximumWork)
        #expect(budget.remaining == 0)
        // Then the guaranteed pool: 10,000 units, then the 5,000 left.
        #expect((10_000...11_000).contains(patterns[4].compileWork))
        #expect((1...6_000).contains(patterns[5].compileWork))
        #expect(budget.guaranteedRemaining == 0)
        // Past both: the dead and initial states only, never explored.
        #expect(patterns.suffix(2).allSatisfy { $0.compileWork == 0 && $0.compiledStateCount == 2 })
        let accepted = "b" + "a" + String(repeating: "b", count: 20)
        for (index, pattern) in patterns.enumerated() {
            #expect(pattern.matches(accepted), "\(index)")
            #expect(pattern.matches("ab" + accepted), "\(index)")
            #expect(!pattern.matches(String(repeating: "b", count: 22)), "\(index)")
            #expect(pattern.matches(String(repeating: "x", count: index + 1)), "\(index)")
            #expect(!pattern.matches(String(repeating: "x", count: index + 2)), "\(index)")
        }
    }

    /// Everyday rules compiled after large patterns spent the shared work keep their whole DFA.
    @Test func everydayRulesAfterASpentBudgetKeepTheirAutomaton() throws {
        let phone = #"\(?\b([0-9]{2,3}|0((x|[0-9]){2,3}[0-9]{2}))\)?\s*[0-9]{4,5}[- ]*[0-9]{4}\b"#
        let budget = CompileBudget(work: 200_000)
        _ = try Pattern("[ab]*a[ab]{20}", budget: budget)
        #expect(budget.remaining == 0)
        let alone = try Pattern(phone)
        let after = try Pattern(phone, budget: budget)
        #expect(after.compileWork == alone.compileWork && after.compiledStateCount == alone.compiledStateCount)
        // Also the pattern that empties the shared work: it gets at least its guaranteed share.
        let tight = CompileBudget(work: 1_000)
        let emptying = try Pattern(phone, budget: tight)
        #expect(emptying.compileWork == alone.compileWork && tight.remaining == 0)
    }

    /// The rules forms usually carry draw little from a definition's budget, so they keep their
    /// whole DFA however many of them a definition has.
    @Test func everydayPatternsNeedLittleWork() throws {
        let sources = [
            "[0-9a-z._%+-]+@[a-z0-9.-]+\\.[a-z]{2,64}",
            #"\(?\b([0-9]{2,3}|0((x|[0-9]){2,3}[0-9]{2}))\)?\s*[0-9]{4,5}[- ]*[0-9]{4}\b"#,
            "[0-9]{3}-[0-9]{3}-[0-9]{4}", #"\p{L}+(?:[ '-]\p{L}+)*"#, "[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}",
        ]
        for source in sources {
            let pattern = try Pattern(source)
            #expect(pattern.compileWork < 5_000, "\(source)")
        }
    }
}
