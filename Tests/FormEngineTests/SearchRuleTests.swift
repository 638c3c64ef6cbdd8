import Testing
@testable import FormEngine

/// `search` (a match anywhere, any letter case) beside `regex` (the whole value, with case).
@Suite struct SearchRuleTests {
    @Test func searchFindsTheSubstringInAnyLetterCase() throws {
        let form = try Fixtures.single("text", #""search": "[a-z]+@[a-z]+\\.no""#)
        #expect(try Fixtures.codes(form, #""john@hyper.no""#) == [])
        #expect(try Fixtures.codes(form, #""Mail: JOHN@HYPER.NO, thanks""#) == [])
        #expect(try Fixtures.codes(form, #""line one\njohn@hyper.no""#) == [])
        #expect(try Fixtures.codes(form, #""john at hyper.no""#) == [.pattern])
        #expect(try Fixtures.codes(form, #""""#) == [])
    }

    @Test func regexStaysWholeStringAndCaseSensitive() throws {
        let form = try Fixtures.single("text", #""regex": "[a-z]+@[a-z]+\\.no""#)
        #expect(try Fixtures.codes(form, #""john@hyper.no""#) == [])
        #expect(try Fixtures.codes(form, #""JOHN@HYPER.NO""#) == [.pattern])
        #expect(try Fixtures.codes(form, #""Mail: john@hyper.no""#) == [.pattern])
    }

    /// Anchors keep their meaning, and an alternation stays inside the search.
    @Test func anchorsAndAlternationsKeepTheirMeaning() throws {
        let anchored = try Fixtures.single("text", #""search": "^ab""#)
        #expect(try Fixtures.codes(anchored, #""ABc""#) == [])
        #expect(try Fixtures.codes(anchored, #""cab""#) == [.pattern])
        let either = try Fixtures.single("text", #""search": "^x|y$""#)
        #expect(try Fixtures.codes(either, #""x..""#) == [])
        #expect(try Fixtures.codes(either, #""..Y""#) == [])
        #expect(try Fixtures.codes(either, #"".x.""#) == [.pattern])
    }

    @Test func searchReplacesAnEmailsBuiltInRule() throws {
        let form = try Fixtures.single("email", #""search": "@""#)
        #expect(try Fixtures.codes(form, #""not really @n email""#) == [])
        #expect(try Fixtures.codes(form, #""nothing""#) == [.email])
    }

    @Test func badSearchesAreDefinitionProblems() {
        let unbalanced = Fixtures.problems(#"{"title": "T", "components": [{"text": {"id": "f", "search": "a)|(b"}}]}"#)
        #expect(unbalanced.map(\.pointer) == ["/components/0/text/search"])
        #expect(unbalanced.map(\.code) == [.badRegex])
        let both = Fixtures.problems(#"{"title": "T", "components": [{"text": {"id": "f", "search": "a", "regex": "a"}}]}"#)
        #expect(both.map(\.code) == [.badValue])
        let number = Fixtures.problems(#"{"title": "T", "components": [{"integer": {"id": "f", "search": "1"}}]}"#)
        #expect(number.map(\.code) == [.notApplicable])
        let group = Fixtures.problems(#"{"title": "T", "components": [{"group": {"id": "g", "search": "1", "components": [{"text": {"id": "f"}}]}}]}"#)
        #expect(group.map(\.code) == [.notApplicable])
    }

    /// A Formworks client gets the compiled whole-string pattern, which NSPredicate reads the same way.
    @Test func theProfileServesTheWholeStringPattern() throws {
        let form = try Fixtures.single("text", #""search": "ab""#)
        let profile = form.formworksProfile().serialized()
        #expect(String(decoding: profile, as: UTF8.self).contains(#"(?i)[\\s\\S]*(?:ab)[\\s\\S]*"#))
    }
}
