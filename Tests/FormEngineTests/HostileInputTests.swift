import Testing
@testable import FormEngine

@Suite struct HostileInputTests {
    @Test func valuesOverTheCapFailWithoutRunningRules() throws {
        // `a*` would accept the value; the cap answers first.
        let form = try Fixtures.single("text", #""regex": "a*""#)
        let long = String(repeating: "a", count: 10_001)
        let result = try Fixtures.validate(form, #"{"values": {"f": "\#(long)"}}"#)
        #expect(result.errors.map(\.code) == ["maxLength"])
        #expect(try Fixtures.validate(form, #"{"values": {"f": "\#(long.dropLast())"}}"#).isValid)
        var options = ValidationOptions()
        options.maxValueLength = 3
        let short = form.validate(try Fixtures.submission(#"{"values": {"f": "aaaa"}}"#), options: options)
        #expect(short.errors.map(\.code) == ["maxLength"])
        // Counted as characters: 10,000 "é" (20,000 bytes) are within the cap.
        let accents = String(repeating: "é", count: 10_000)
        let plain = try Fixtures.single("text")
        #expect(try Fixtures.validate(plain, #"{"values": {"f": "\#(accents)"}}"#).isValid)
        #expect(try Fixtures.validate(plain, #"{"values": {"f": "\#(accents)é"}}"#).errors.map(\.code) == ["maxLength"])
    }

    /// A catastrophic pattern cannot stall validation: FormRegex matches in linear time.
    @Test func catastrophicPatternFinishes() throws {
        let form = try Fixtures.single("text", #""regex": "(a+)+$""#)
        let hostile = String(repeating: "a", count: 5_000) + "!"
        #expect(try Fixtures.validate(form, #"{"values": {"f": "\#(hostile)"}}"#).errors.map(\.code) == ["pattern"])
        #expect(try Fixtures.validate(form, #"{"values": {"f": "\#(hostile.dropLast())"}}"#).isValid)
    }

    @Test func deepOrHugeSubmissionsAreRefused() {
        let deep = #"{"values": "# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}"
        #expect(throws: SubmissionError.self) { try Fixtures.submission(deep) }
        var limits = SubmissionLimits()
        limits.maxComponents = 2
        let three = #"{"components": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}"#
        #expect(throws: SubmissionError(code: "tooLarge", message: "A snapshot may hold at most 2 components.")) {
            try Submission(json: Array(three.utf8), limits: limits)
        }
        // An index past the limit is not expanded into an array; the id stays opaque and is unknown.
        let far = try? Fixtures.submission(#"{"components": [{"id": "k[100000].a"}]}"#)
        #expect(far?.values.keys == ["k[100000].a"])
    }
}
