import FormEngine
import Testing

/// `"sensitive": true` on an input, always so on a `password`: which inputs a definition says are
/// sensitive, and the walk that reaches their values.
@Suite struct SensitiveInputTests {
    static let form = #"""
        {"title": "T", "components": [
          {"text": {"id": "name", "title": "Name"}},
          {"password": {"id": "pin", "title": "PIN"}},
          {"section": {"title": "S", "components": [{"text": {"id": "tax", "title": "Tax id", "sensitive": true}}]}},
          {"group": {"id": "bank", "title": "Bank", "components": [
            {"text": {"id": "iban", "title": "IBAN", "sensitive": true}},
            {"text": {"id": "branch", "title": "Branch", "sensitive": false}}]}},
          {"group": {"id": "kids", "title": "Kids", "repeat": {"min": 0, "max": 5}, "components": [
            {"text": {"id": "kname", "title": "Name"}},
            {"group": {"id": "ids", "title": "Ids", "components": [{"numerical": {"id": "ssn", "title": "SSN", "sensitive": true}}]}}]}},
          {"group": {"id": "plain", "title": "Plain", "components": [{"text": {"id": "note", "title": "Note"}}]}}
        ]}
        """#

    @Test func pathsNameEverySensitiveInputAndEveryPassword() throws {
        let definition = try Fixtures.definition(Self.form)
        #expect(definition.sensitiveInputPaths == ["pin", "tax", "bank.iban", "kids[].ids.ssn"])
        #expect(definition.hasSensitiveInputs)
        let plain = try Fixtures.single("text")
        #expect(plain.sensitiveInputPaths.isEmpty)
        #expect(!plain.hasSensitiveInputs)
        #expect(try Fixtures.single("password").sensitiveInputPaths == ["f"])
        #expect(try Fixtures.single("password", #""sensitive": true"#).sensitiveInputPaths == ["f"])
        #expect(try Fixtures.single("select", #""options": [{"id": "a"}], "sensitive": true"#).sensitiveInputPaths == ["f"])
    }

    @Test func theWalkReachesEachSensitiveValueWhereverItStands() throws {
        let definition = try Fixtures.definition(Self.form)
        let values: JSONValue = [
            "name": "Ada", "pin": "1234", "tax": "T-1",
            "bank": ["iban": "DE00", "branch": "Mitte"],
            "kids": [["kname": "Bo", "ids": ["ssn": "111"]], ["kname": "Cy"], ["kname": "Di", "ids": ["ssn": nil]]],
            "plain": ["note": "n"],
        ]
        var seen: [JSONValue] = []
        let mapped = definition.mappingSensitiveValues(in: values) { value in
            seen.append(value)
            return ["hidden": value]
        }
        #expect(seen == ["1234", "T-1", "DE00", "111", nil])
        let expected: JSONValue = [
            "name": "Ada", "pin": ["hidden": "1234"], "tax": ["hidden": "T-1"],
            "bank": ["iban": ["hidden": "DE00"], "branch": "Mitte"],
            "kids": [["kname": "Bo", "ids": ["ssn": ["hidden": "111"]]], ["kname": "Cy"], ["kname": "Di", "ids": ["ssn": ["hidden": nil]]]],
            "plain": ["note": "n"],
        ]
        #expect(mapped == expected)
    }

    @Test func nilRemovesTheValueAndKeepsTheOrderOfTheRest() throws {
        let definition = try Fixtures.definition(Self.form)
        let values: JSONValue = ["name": "Ada", "pin": "1234", "bank": ["iban": "DE00", "branch": "Mitte"], "kids": [["ids": ["ssn": "1"]]]]
        let redacted = definition.mappingSensitiveValues(in: values) { _ in nil }
        #expect(redacted == ["name": "Ada", "bank": ["branch": "Mitte"], "kids": [["ids": [:]]]])
        #expect(redacted.objectValue?.keys == ["name", "bank", "kids"])
    }

    @Test func valuesOfTheWrongShapeAndFormsWithoutSensitiveInputsAreLeftAlone() throws {
        let definition = try Fixtures.definition(Self.form)
        let odd: JSONValue = ["bank": ["DE00"], "kids": ["ids": ["ssn": "1"]]]
        #expect(definition.mappingSensitiveValues(in: odd) { _ in nil } == odd)
        #expect(definition.mappingSensitiveValues(in: "not an object") { _ in nil } == "not an object")
        let plain = try Fixtures.single("text")
        #expect(plain.mappingSensitiveValues(in: ["f": "x"]) { _ in nil } == ["f": "x"])
    }

    @Test func theTransformMayThrow() throws {
        struct Refused: Error {}
        let definition = try Fixtures.single("password")
        #expect(throws: Refused.self) { _ = try definition.mappingSensitiveValues(in: ["f": "x"]) { _ in throw Refused() } }
    }

    @Test(arguments: [
        (#"{"text": {"id": "f", "sensitive": "yes"}}"#, "/components/0/text/sensitive"),
        (#"{"password": {"id": "f", "sensitive": false}}"#, "/components/0/password/sensitive"),
        (#"{"group": {"id": "g", "sensitive": true, "components": [{"text": {"id": "f"}}]}}"#, "/components/0/group/sensitive"),
        (#"{"section": {"sensitive": true, "components": [{"text": {"id": "f"}}]}}"#, "/components/0/section/sensitive"),
    ])
    func aBadSensitiveIsAProblemAtItsPointer(_ component: String, _ pointer: String) {
        let json = #"{"title": "T", "components": [\#(component)]}"#
        #expect(Fixtures.problems(json).map(\.pointer) == [pointer])
    }

    @Test func aStoredDefinitionWithAnOddSensitiveStillReads() throws {
        let json = #"""
            {"title": "T", "components": [{"text": {"id": "a", "sensitive": "yes"}}, {"password": {"id": "b", "sensitive": false}},
              {"group": {"id": "g", "sensitive": true, "components": [{"text": {"id": "c"}}]}}]}
            """#
        let definition = try FormDefinition(json: Array(json.utf8), reading: .stored)
        #expect(definition.sensitiveInputPaths == ["b"])
    }

    @Test func theDefinitionKeepsTheKeyAndTheFormworksProfileLeavesItOut() throws {
        let definition = try Fixtures.definition(Self.form)
        #expect(definition.normalizedJSON().serialized().containsBytes(#""sensitive":true"#))
        let profile = definition.formworksProfile().serialized()
        #expect(!profile.containsBytes("sensitive"))
        // A sensitive text input is served as the plain text input it is.
        #expect(profile.containsBytes(#"{"text":{"id":"tax","#))
    }
}

extension [UInt8] {
    fileprivate func containsBytes(_ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
    }
}
