import Testing
@testable import FormEngine

/// `enabledWhen`: the grammar of `visibleWhen`; while false, a value sent for the input is dropped,
/// not validated.
@Suite struct EnabledWhenTests {
    private let form = #"""
    {"title": "T", "components": [
      {"switch": {"id": "company"}},
      {"text": {"id": "vat", "required": true, "regex": "[A-Z]{2}[0-9]+", "enabledWhen": {"field": "company", "equals": true}}},
      {"decimal": {"id": "a"}},
      {"decimal": {"id": "r", "formula": "a * 2", "enabledWhen": {"field": "company", "equals": true}}}]}
    """#

    @Test func aDisabledInputsValueIsDropped() throws {
        let definition = try Fixtures.definition(form)
        let off = try Fixtures.validate(definition, #"{"values": {"company": false, "vat": "not valid", "a": 1}}"#)
        #expect(off.isValid, "\(off.errors)")
        #expect(off.values == ["company": false, "a": 1, "r": 2])
        let on = try Fixtures.validate(definition, #"{"values": {"company": true, "vat": "not valid"}}"#)
        #expect(on.errors.map(\.code) == [.pattern])
        #expect(try Fixtures.validate(definition, #"{"values": {"company": true}}"#).errors.map(\.code) == [.required])
        #expect(try Fixtures.validate(definition, #"{"values": {"company": "true", "vat": "PT123"}}"#).values["vat"] == "PT123")
    }

    @Test func definitionProblems() {
        let cases: [(String, [String])] = [
            (#"{"text": {"id": "x", "enabledWhen": {"field": "nope", "equals": 1}}}"#, ["/components/0/text/enabledWhen/field unknownField"]),
            (#"{"text": {"id": "x", "enabledWhen": "yes"}}"#, ["/components/0/text/enabledWhen badCondition"]),
            (#"{"group": {"id": "g", "enabledWhen": {"field": "x", "notEmpty": true}, "components": []}}"#, ["/components/0/group/enabledWhen notApplicable"]),
        ]
        for (component, expected) in cases {
            let found = Fixtures.problems(#"{"title": "T", "components": [\#(component)]}"#).map { "\($0.pointer) \($0.code.rawValue)" }
            #expect(found == expected, "\(component)")
        }
        let onComputed = Fixtures.problems(#"{"title": "T", "components": [{"decimal": {"id": "r", "formula": "1"}}, {"text": {"id": "s", "enabledWhen": {"field": "r", "equals": 1}}}]}"#)
        #expect(onComputed.map(\.pointer) == ["/components/1/text/enabledWhen"])
    }

    /// The profile keeps neither key (a Formworks client decodes it) and asks for neither input as required.
    @Test func theFormworksProfileServesThemAsOptional() throws {
        let profile = try Fixtures.definition(form).formworksProfile().serialized()
        let text = String(decoding: profile, as: UTF8.self)
        #expect(!text.contains("enabledWhen") && !text.contains("formula"))
        #expect(!text.contains(#""required":true"#))
    }
}
