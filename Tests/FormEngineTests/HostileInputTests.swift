import Testing
@testable import FormEngine
import FormRegex

@Suite struct HostileInputTests {
    @Test func valuesOverTheCapFailWithoutRunningRules() throws {
        // `a*` would accept the value; the cap answers first.
        let form = try Fixtures.single("text", #""regex": "a*""#)
        let long = String(repeating: "a", count: 10_001)
        let result = try Fixtures.validate(form, #"{"values": {"f": "\#(long)"}}"#)
        #expect(result.errors.map(\.code) == [.maxLength])
        #expect(try Fixtures.validate(form, #"{"values": {"f": "\#(long.dropLast())"}}"#).isValid)
        var options = ValidationOptions()
        options.maxValueLength = 3
        let short = form.validate(try Fixtures.submission(#"{"values": {"f": "aaaa"}}"#), options: options)
        #expect(short.errors.map(\.code) == [.maxLength])
        // Counted as characters: 10,000 "é" (20,000 bytes) are within the cap.
        let accents = String(repeating: "é", count: 10_000)
        let plain = try Fixtures.single("text")
        #expect(try Fixtures.validate(plain, #"{"values": {"f": "\#(accents)"}}"#).isValid)
        #expect(try Fixtures.validate(plain, #"{"values": {"f": "\#(accents)é"}}"#).errors.map(\.code) == [.maxLength])
    }

    /// A catastrophic pattern cannot stall validation: FormRegex matches in linear time.
    @Test func catastrophicPatternFinishes() throws {
        let form = try Fixtures.single("text", #""regex": "(a+)+$""#)
        let hostile = String(repeating: "a", count: 5_000) + "!"
        #expect(try Fixtures.validate(form, #"{"values": {"f": "\#(hostile)"}}"#).errors.map(\.code) == [.pattern])
        #expect(try Fixtures.validate(form, #"{"values": {"f": "\#(hostile.dropLast())"}}"#).isValid)
    }

    @Test func deepOrHugeSubmissionsAreRefused() {
        // Nesting past the limit is refused for its size, not reported as broken JSON.
        let deep = #"{"values": "# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}"
        #expect(throwsCode(.tooLarge) { try Fixtures.submission(deep) })
        var limits = SubmissionLimits()
        limits.maxComponents = 2
        let three = #"{"components": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}"#
        #expect(throws: SubmissionError(code: .tooLarge, message: "A snapshot may hold at most 2 components.")) {
            try Submission(json: Array(three.utf8), limits: limits)
        }
        // An index past the limit is refused, not expanded into an array.
        #expect(throwsCode(.tooLarge) { try Fixtures.submission(#"{"components": [{"id": "k[1000].a"}]}"#) })
        #expect(throwsCode(.tooLarge) { try Fixtures.submission(#"{"components": [{"id": "k[99999999999999999999999].a"}]}"#) })
        let highest = try? Fixtures.submission(#"{"components": [{"id": "k[999].a", "content": 1}]}"#)
        #expect(highest?.values["k"]?.arrayValue?.count == 1_000)
        // What is not key-path syntax stays an opaque id, which no form has.
        let odd = try? Fixtures.submission(#"{"components": [{"id": "k[x].a"}, {"id": "a..b"}, {"id": "k[+1].a"}]}"#)
        #expect(odd?.values.keys == ["k[x].a", "a..b", "k[+1].a"])
    }

    /// An id of very many parts would recurse once per part and overflow the stack; it is refused at
    /// the nesting limit, after reading only that far.
    @Test func keyPathIDsDeeperThanTheLimitAreRefused() {
        let parts = Array(repeating: "x", count: 50_000).joined(separator: ".")
        #expect(throwsCode(.tooLarge) { try Fixtures.submission(#"{"components": [{"id": "\#(parts)", "content": "v"}]}"#) })
        let indexed = Array(repeating: "x[0]", count: 40).joined(separator: ".")
        #expect(throwsCode(.tooLarge) { try Fixtures.submission(#"{"components": [{"id": "\#(indexed)"}]}"#) })
        // Up to the limit, an id nests.
        let limit = Array(repeating: "x", count: SubmissionLimits().maxDepth).joined(separator: ".")
        #expect((try? Fixtures.submission(#"{"components": [{"id": "\#(limit)", "content": "v"}]}"#)) != nil)
    }

    /// Sparse indexes in ids (`a[999].b[999]...`) would build a thousand entries per level from a few
    /// bytes; the entries ids may create in all are bounded.
    @Test func entriesCreatedBySnapshotIDsAreBounded() throws {
        let sparse = Array(repeating: "x[999]", count: 16).joined(separator: ".") + ".y"
        #expect(throwsCode(.tooLarge) {
            try Fixtures.submission(#"{"components": [{"id": "\#(sparse)"}, {"id": "z[999].\#(sparse)"}]}"#)
        })
        var limits = SubmissionLimits()
        limits.maxCreatedEntries = 1_500
        let two = #"{"components": [{"id": "a[999].x"}, {"id": "b[499].x"}]}"#
        #expect((try? Submission(json: Array(two.utf8), limits: limits)) != nil)
        let three = #"{"components": [{"id": "a[999].x"}, {"id": "b[499].x"}, {"id": "c[0].x"}]}"#
        #expect(throws: SubmissionError(code: .tooLarge, message: "The snapshot's ids name more than 1500 repeat entries in all.")) {
            try Submission(json: Array(three.utf8), limits: limits)
        }
        // Entries that exist already cost nothing: many fields of one dense repeat fit easily.
        let dense = (0..<1_000).flatMap { i in ["{\"id\": \"kids[\(i)].name\"}", "{\"id\": \"kids[\(i)].age\"}"] }
        let body = #"{"components": ["# + dense.joined(separator: ",") + "]}"
        limits.maxCreatedEntries = 1_000
        #expect(try Submission(json: Array(body.utf8), limits: limits).values["kids"]?.arrayValue?.count == 1_000)
    }

    /// Members the reader skips (everything but `id` and `content` of a component, and unknown
    /// top-level members) are checked for duplicate keys like everything it builds.
    @Test func duplicateKeysInSkippedMembersAreRefused() {
        let refused = [
            #"{"values": {}, "meta": {"k": 1, "k": 2}}"#,
            #"{"components": [{"id": "a", "title": "A", "title": "B"}]}"#,
            #"{"components": [{"id": "a", "content": 1, "content": 2}]}"#,
            #"{"components": [{"id": "a", "id": "b"}]}"#,
            #"{"components": [{"id": "a", "extra": [{"x": 1, "y": {}, "x": 2}]}]}"#,
            #"{"components": [{"id": "a", "t\u0069tle": 1, "title": 2}]}"#,
        ]
        for body in refused {
            #expect(throwsCode(.malformedJSON) { try Fixtures.submission(body) }, "\(body)")
        }
        // The same key in different objects, or nested under itself, is fine.
        let accepted = [
            #"{"values": {}, "meta": {"k": {"k": 1}, "j": {"k": 2}}}"#,
            #"{"components": [{"id": "a", "title": "A"}, {"id": "b", "title": "A"}]}"#,
        ]
        for body in accepted {
            #expect((try? Fixtures.submission(body)) != nil, "\(body)")
        }
        // Past 64 keys the check moves to a set; a repeat there is still found.
        let many = (0..<300).map { "\"k\($0)\": \($0)" }
        #expect((try? Fixtures.submission(#"{"values": {}, "meta": {"# + many.joined(separator: ",") + "}}")) != nil)
        #expect(throwsCode(.malformedJSON) {
            try Fixtures.submission(#"{"values": {}, "meta": {"# + (many + ["\"k7\": 0"]).joined(separator: ",") + "}}")
        })
    }

    private func throwsCode(_ code: SubmissionError.Code, _ body: () throws -> Submission) -> Bool {
        do {
            _ = try body()
            return false
        } catch let error as SubmissionError {
            return error.code == code
        } catch {
            return false
        }
    }
}

extension HostileInputTests {
    /// All of a definition's regexes share one compile budget: past it, patterns build no DFA states
    /// (so 200 large ones cannot take seconds and hundreds of MiB), yet still validate correctly.
    @Test func regexesShareOneCompileBudget() throws {
        let count = 40
        let fields = (0..<count).map { #"{"text": {"id": "f\#($0)", "regex": "[ab]*a[ab]{20}|x{\#($0 + 1)}"}}"# }
        let form = try Fixtures.definition(#"{"id": "big", "title": "Big", "components": [\#(fields.joined(separator: ","))]}"#)
        let patterns = form.nodes.compactMap { node -> Pattern? in
            if case .input(let spec) = node.kind { return spec.pattern }
            return nil
        }
        #expect(patterns.count == count)
        let total = patterns.reduce(0) { $0 + $1.compileWork }
        #expect(total <= 2 * CompileBudget.definitionWork + Pattern.maximumWork)
        // Past the shared work, each pattern gets at most its guaranteed share.
        #expect((patterns.last?.compileWork ?? .max) <= CompileBudget.guaranteedWork + 1_000)
        let good = "b" + "a" + String(repeating: "b", count: 20)
        let values = (0..<count).map { #""f\#($0)": "\#($0 % 2 == 0 ? good : String(repeating: "x", count: $0 + 1))""# }
        #expect(try Fixtures.validate(form, #"{"values": {\#(values.joined(separator: ","))}}"#).isValid)
        let bad = (0..<count).map { #""f\#($0)": "\#(String(repeating: "x", count: $0 + 2))""# }
        let result = try Fixtures.validate(form, #"{"values": {\#(bad.joined(separator: ","))}}"#)
        #expect(result.errors.map(\.code) == Array(repeating: .pattern, count: count))
    }
}

extension HostileInputTests {
    /// Nested repeat minimums multiply in the Formworks profile and sibling repeats add up: three
    /// groups of `"min": 1000` in a few hundred bytes would ask for a billion components. What
    /// repeats add is limited to 20,000 components; the innermost repeat past it is reported, or
    /// `/components` when only siblings together pass it.
    @Test func repeatMinimumsCannotExpandTheProfilePastTheLimit() throws {
        func group(_ id: String, min: Int, _ inner: String) -> String {
            #"{"group": {"id": "\#(id)", "title": "G", "repeat": {"min": \#(min), "max": 100000}, "components": [\#(inner)]}}"#
        }
        func form(_ components: String) -> String { #"{"title": "F", "components": [\#(components)]}"# }
        let text = #"{"text": {"id": "t", "title": "T"}}"#
        let codes = { (json: String) in Fixtures.problems(json).map { "\($0.pointer) \($0.code)" } }

        let nested = form(group("a", min: 1000, group("b", min: 1000, group("c", min: 1000, text))))
        #expect(codes(nested) == ["/components/0/group/components/0/group/repeat/min tooLarge"])
        // Siblings inside a group, each within the limit, pass it together: the group's components
        // are reported, since lowering its own min would not help.
        let siblings = form(group("a", min: 20_000, group("b", min: 20_000, text) + "," + group("c", min: 20_000, text)))
        #expect(codes(siblings) == ["/components/0/group/components tooLarge"])
        // Top-level siblings, each within the limit: the form is.
        let many = form((0..<50).map { group("g\($0)", min: 20_000, text) }.joined(separator: ","))
        #expect(codes(many) == ["/components tooLarge"])

        // Up to the limit the definition stands, and its profile is written out in full.
        let twenty = (0..<20).map { #"{"text": {"id": "t\#($0)", "title": "T"}}"# }.joined(separator: ",")
        let atLimit = try Fixtures.definition(form(group("a", min: 1000, twenty)))
        #expect(atLimit.formworksProfile().objectValue?["components"]?.arrayValue?.count == 20_000)
        #expect(codes(form(group("a", min: 1000, twenty + "," + text))) == ["/components/0/group/repeat/min tooLarge"])
        // Many plain components are not repeats: a small repeat beside them adds one.
        let plain = (0..<300).map { #"{"text": {"id": "p\#($0)", "title": "P"}}"# }.joined(separator: ",")
        #expect(codes(form(plain + "," + group("r", min: 2, text))).isEmpty)
    }

    /// A form no client could submit to is refused at upload: sixteen nested repeats make values
    /// 34 JSON levels deep, past the 32 a submission may have; fifteen fit, and such a submission
    /// is read. A stored one is still read.
    @Test func groupsMayNotNestDeeperThanASubmissionMay() throws {
        func nested(_ count: Int) -> String {
            var inner = #"{"text": {"id": "t", "title": "T"}}"#
            for level in 0..<count { inner = #"{"group": {"id": "g\#(level)", "title": "G", "repeat": {"max": 2}, "components": [\#(inner)]}}"# }
            return #"{"title": "F", "components": [\#(inner)]}"#
        }
        #expect(Fixtures.problems(nested(16)).map { "\($0.pointer) \($0.code)" } == ["/components tooLarge"])
        #expect(try FormDefinition(json: Array(nested(16).utf8), reading: .stored).inputPaths.count == 1)
        let fifteen = try Fixtures.definition(nested(15))
        var values = #"{"t": "x"}"#
        for level in 0..<15 { values = #"{"g\#(level)": [\#(values)]}"# }
        let result = try Fixtures.validate(fifteen, #"{"values": \#(values)}"#)
        #expect(result.isValid, "\(result.errors)")
    }

    /// A Formworks client sends every component of the profile: a repeat whose minimum writes 3,000
    /// of them is submitted as served: the snapshot cap leaves room for every component a profile serves.
    @Test func aSnapshotMayHoldEveryComponentTheProfileServes() throws {
        let inputs = (0..<3).map { #"{"text": {"id": "t\#($0)", "title": "T"}}"# }.joined(separator: ",")
        let form = try Fixtures.definition(#"{"title": "F", "components": [{"group": {"id": "g", "title": "G", "repeat": {"min": 1000, "max": 1000}, "components": [\#(inputs)]}}]}"#)
        let ids = form.formworksProfile().objectValue?["components"]?.arrayValue?.compactMap { $0.objectValue?.values.first?.objectValue?["id"]?.stringValue } ?? []
        #expect(ids.count == 3000)
        let snapshot = #"{"components": ["# + ids.map { #"{"id": "\#($0)", "content": "x"}"# }.joined(separator: ",") + "]}"
        let result = try Fixtures.validate(form, snapshot)
        #expect(result.isValid, "\(result.errors.prefix(3))")
    }

    /// Each component repeats the titles and ids of the groups around it, once per repeat entry, so
    /// a long group title made gigabytes from a small definition: the profile's size is estimated
    /// and refused past 16 MiB, with repeats or without. A stored definition is read, and only
    /// serves no profile.
    @Test func longGroupTitlesCannotBlowUpTheProfile() throws {
        let title = String(repeating: "T", count: 100_000)
        let inputs = (0..<200).map { #"{"text": {"id": "i\#($0)"}}"# }.joined(separator: ",")
        let nested = #"{"title": "F", "components": [{"group": {"id": "g", "title": "\#(title)", "components": [\#(inputs)]}}]}"#
        #expect(Fixtures.problems(nested).map { "\($0.pointer) \($0.code)" } == ["/components tooLarge"])
        let repeated = #"{"title": "F", "components": [{"group": {"id": "g", "title": "\#(title)", "repeat": {"min": 20000, "max": 20000}, "components": [{"text": {"id": "t"}}]}}]}"#
        #expect(Fixtures.problems(repeated).map { "\($0.pointer) \($0.code)" } == ["/components tooLarge"])
        let stored = try FormDefinition(json: Array(repeated.utf8), reading: .stored)
        #expect(stored.formworksProfileTooLarge)
        // Counted as served: a control character is six bytes there, and a multiple select writes its
        // options three times (description and regex), so 1.9 KB here would be about 108 MB.
        let control = String(repeating: "\\u0001", count: 291)
        let select = #"{"select": {"id": "s", "multiple": true, "options": [{"id": "\#(control)"}]}}"#
        let escaped = #"{"title": "F", "components": [{"group": {"id": "g", "repeat": {"min": 20000, "max": 20000}, "components": [\#(select)]}}]}"#
        #expect(Fixtures.problems(escaped).map { "\($0.pointer) \($0.code)" } == ["/components tooLarge"])
        // An input's own id has no length limit and is written in every copy too.
        let longID = String(repeating: "x", count: 500_000)
        let ids = #"{"title": "F", "components": [{"group": {"id": "g", "repeat": {"min": 2000, "max": 2000}, "components": [{"text": {"id": "\#(longID)", "title": "x"}}]}}]}"#
        #expect(Fixtures.problems(ids).map { "\($0.pointer) \($0.code)" } == ["/components tooLarge"])
        // A long title over a few inputs is fine.
        let few = #"{"title": "F", "components": [{"group": {"id": "g", "title": "\#(title)", "components": [{"text": {"id": "t"}}]}}]}"#
        #expect(Fixtures.problems(few).isEmpty)
        #expect(try !Fixtures.definition(few).formworksProfileTooLarge)
    }
}
