import FormEngine
import Testing

/// Which forms a server should judge off its event loops: those with a regex whose automaton could
/// not be finished, so that some values take the NFA fallback.
@Suite struct SlowPatternDefinitionTests {
    static func form(_ regex: String) throws -> FormDefinition {
        let escaped = regex.replacingOccurrences(of: "\\", with: "\\\\")
        return try FormDefinition(json: Array(#"{"id": "f", "title": "F", "components": [{"text": {"id": "a", "title": "A", "regex": "\#(escaped)"}}]}"#.utf8))
    }

    @Test func anUnfinishedAutomatonMarksTheForm() throws {
        #expect(try Self.form(".*a.{300}.{300}.{300}.{300}").hasSlowPatterns)
        #expect(try Self.form(".*a.{1000}.{1000}.{1000}.{1000}.{900}").hasSlowPatterns)
        // Small, but its 2^21 states outgrow the budget: some values take the fallback.
        #expect(try Self.form("[ab]*a[ab]{20}").hasSlowPatterns)
    }

    @Test(arguments: ["[0-9]{5}-?[0-9]{3}", "[^@ ]+@[^@ ]+\\.[a-z]{2,}", "(a+)+$", "x{1000}"])
    func everydayAndSmallPatternsDoNot(_ regex: String) throws {
        #expect(try !Self.form(regex).hasSlowPatterns, "\(regex)")
    }
}
