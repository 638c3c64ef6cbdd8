import Testing
@testable import FormEngine

/// `updates` (values a renderer puts into an input when a condition comes to hold), an input's
/// `default` and an option's: behaviour of renderers, which the engine checks could be applied but
/// never applies.
@Suite struct InputUpdatesTests {
    private let form = #"""
    {"title": "T", "components": [
      {"select": {"id": "plan", "options": [{"id": "free", "title": "Free", "default": true}, {"id": "team", "title": "Team"}]}},
      {"integer": {"id": "seats", "minValue": 1, "updates": [{"when": {"field": "plan", "equals": "free"}, "value": 1}]}},
      {"text": {"id": "coupon", "maxLength": 8, "updates": [{"when": {"field": "plan", "equals": "team"}, "value": "TEAM10"},
                                                        {"when": {"field": "plan", "equals": "free"}, "value": null}]}}]}
    """#

    @Test func theyAreKeptForClientsAndNotAppliedByTheEngine() throws {
        let definition = try Fixtures.definition(form)
        let components = definition.normalizedJSON()["components"]?.arrayValue ?? []
        #expect(components.count == 3)
        #expect(components.last?["text"]?["updates"] == [["when": ["field": "plan", "equals": "team"], "value": "TEAM10"],
                                                        ["when": ["field": "plan", "equals": "free"], "value": nil]])
        #expect(components.first?["select"]?["options"]?.arrayValue?.first?["default"] == true)
        // What the person ended with is what is judged: the update's value is not put in.
        let result = try Fixtures.validate(definition, #"{"values": {"plan": "free", "seats": 7, "coupon": "MINE"}}"#)
        #expect(result.isValid && result.values == ["plan": "free", "seats": 7, "coupon": "MINE"])
        #expect(try Fixtures.validate(definition, #"{"values": {"plan": "team"}}"#).values == ["plan": "team"])
    }

    @Test func theFormworksProfileLeavesThemOut() throws {
        let text = String(decoding: try Fixtures.definition(form).formworksProfile().serialized(), as: UTF8.self)
        #expect(!text.contains("updates") && !text.contains("TEAM10") && !text.contains("default"))
    }

    @Test func eachUpdateCouldBeApplied() {
        let cases: [(String, [String])] = [
            // The value must pass the input's own rules.
            (#"{"integer": {"id": "x", "updates": [{"when": {"field": "k", "equals": "a"}, "value": "many"}]}}"#, ["/components/1/integer/updates/0/value badValue"]),
            (#"{"text": {"id": "x", "maxLength": 2, "updates": [{"when": {"field": "k", "equals": "a"}, "value": "long"}]}}"#, ["/components/1/text/updates/0/value badValue"]),
            (#"{"select": {"id": "x", "options": [{"id": "p"}], "updates": [{"when": {"field": "k", "equals": "a"}, "value": "q"}]}}"#, ["/components/1/select/updates/0/value badValue"]),
            // A clear is always possible, even of a required input: the person fills it in again.
            (#"{"text": {"id": "x", "required": true, "updates": [{"when": {"field": "k", "equals": "a"}, "value": null}]}}"#, []),
            // A value the person may empty again need not meet `required`: a required switch may be turned off.
            (#"{"switch": {"id": "x", "required": true, "updates": [{"when": {"field": "k", "equals": "a"}, "value": false}]}}"#, []),
            // The condition is a visibleWhen's: earlier inputs, known paths.
            (#"{"text": {"id": "x", "updates": [{"when": {"field": "nope", "equals": 1}, "value": "v"}]}}"#, ["/components/1/text/updates/0/when/field unknownField"]),
            (#"{"text": {"id": "x", "updates": [{"when": {"field": "x", "notEmpty": true}, "value": "v"}]}}"#, ["/components/1/text/updates/0/when/field forwardReference"]),
            (#"{"text": {"id": "x", "updates": [{"when": "k == a", "value": "v"}]}}"#, ["/components/1/text/updates/0/when badCondition"]),
            // Shape.
            (#"{"text": {"id": "x", "updates": []}}"#, ["/components/1/text/updates invalidType"]),
            (#"{"text": {"id": "x", "updates": {"when": {"field": "k", "equals": "a"}, "value": "v"}}}"#, ["/components/1/text/updates invalidType"]),
            (#"{"text": {"id": "x", "updates": [{"when": {"field": "k", "equals": "a"}}]}}"#, ["/components/1/text/updates/0 missing"]),
            (#"{"text": {"id": "x", "updates": [{"when": {"field": "k", "equals": "a"}, "value": "v", "once": true}]}}"#, ["/components/1/text/updates/0/once badValue"]),
            // Where they cannot apply.
            (#"{"decimal": {"id": "x", "formula": "1", "updates": [{"when": {"field": "k", "equals": "a"}, "value": 2}]}}"#, ["/components/1/decimal/updates notApplicable"]),
            (#"{"file": {"id": "x", "updates": [{"when": {"field": "k", "equals": "a"}, "value": null}]}}"#, ["/components/1/file/updates notApplicable"]),
            (#"{"group": {"id": "g", "updates": [{"when": {"field": "k", "equals": "a"}, "value": null}], "components": [{"text": {"id": "y"}}]}}"#, ["/components/1/group/updates notApplicable"]),
        ]
        for (component, expected) in cases {
            let json = #"{"title": "T", "components": [{"select": {"id": "k", "options": [{"id": "a"}]}}, \#(component)]}"#
            #expect(Fixtures.problems(json).map { "\($0.pointer) \($0.code.rawValue)" } == expected, "\(component)")
        }
        let many = (0...DefinitionDecoder.maximumUpdates).map { _ in #"{"when": {"field": "k", "equals": "a"}, "value": "v"}"# }.joined(separator: ",")
        let tooMany = #"{"title": "T", "components": [{"select": {"id": "k", "options": [{"id": "a"}]}}, {"text": {"id": "x", "updates": [\#(many)]}}]}"#
        #expect(Fixtures.problems(tooMany).map(\.code) == [.tooLarge])
    }

    /// No one changes a computed input, so no update could ever run on its change.
    @Test func aConditionCannotReadAComputedInput() {
        let json = #"{"title": "T", "components": [{"decimal": {"id": "a"}}, {"decimal": {"id": "r", "formula": "a * 2"}}, {"text": {"id": "x", "updates": [{"when": {"field": "r", "equals": 2}, "value": "v"}]}}]}"#
        #expect(Fixtures.problems(json).map { "\($0.pointer) \($0.code.rawValue)" } == ["/components/2/text/updates/0/when badCondition"])
    }

    @Test func anOptionsDefault() throws {
        let single = #"{"title": "T", "components": [{"select": {"id": "k", "options": [{"id": "a", "default": true}, {"id": "b", "default": true}]}}]}"#
        #expect(Fixtures.problems(single).map { "\($0.pointer) \($0.code.rawValue)" } == ["/components/0/select/options/1/default badValue"])
        let multiple = #"{"title": "T", "components": [{"select": {"id": "k", "multiple": true, "options": [{"id": "a", "default": true}, {"id": "b", "default": true}]}}]}"#
        #expect(Fixtures.problems(multiple).isEmpty)
        let notBool = #"{"title": "T", "components": [{"select": {"id": "k", "options": [{"id": "a", "default": "yes"}]}}]}"#
        #expect(Fixtures.problems(notBool).map { "\($0.pointer) \($0.code.rawValue)" } == ["/components/0/select/options/0/default invalidType"])
        // A required select with a default is still answered by what is sent, not by the default.
        let required = try Fixtures.definition(#"{"title": "T", "components": [{"select": {"id": "k", "required": true, "options": [{"id": "a", "default": true}]}}]}"#)
        #expect(try Fixtures.validate(required, #"{"values": {}}"#).errors.map(\.code) == [.required])
    }

    @Test func anInputsDefault() throws {
        let definition = try Fixtures.definition(#"{"title": "T", "components": [{"integer": {"id": "n", "required": true, "default": 1}}, {"switch": {"id": "s", "default": true}}]}"#)
        #expect(definition.normalizedJSON()["components"]?.arrayValue?.first?["integer"]?["default"] == 1)
        // Not filled in by the engine: the values sent are what the person ended with.
        #expect(try Fixtures.validate(definition, #"{"values": {}}"#).errors.map(\.code) == [.required])
        #expect(!String(decoding: definition.formworksProfile().serialized(), as: UTF8.self).contains("default"))
        let cases: [(String, [String])] = [
            (#"{"text": {"id": "x", "default": "hello"}}"#, []),
            (#"{"switch": {"id": "x", "required": true, "default": false}}"#, []),
            (#"{"text": {"id": "x", "maxLength": 2, "default": "hello"}}"#, ["/components/0/text/default badValue"]),
            (#"{"integer": {"id": "x", "default": "many"}}"#, ["/components/0/integer/default badValue"]),
            (#"{"date": {"id": "x", "default": "2026-13-01"}}"#, ["/components/0/date/default badValue"]),
            (#"{"select": {"id": "x", "options": [{"id": "a"}], "default": "a"}}"#, ["/components/0/select/default notApplicable"]),
            (#"{"file": {"id": "x", "default": null}}"#, ["/components/0/file/default notApplicable"]),
            (#"{"decimal": {"id": "x", "formula": "1", "default": 2}}"#, ["/components/0/decimal/default notApplicable"]),
            (#"{"group": {"id": "g", "default": 1, "components": [{"text": {"id": "y"}}]}}"#, ["/components/0/group/default notApplicable"]),
        ]
        for (component, expected) in cases {
            #expect(Fixtures.problems(#"{"title": "T", "components": [\#(component)]}"#).map { "\($0.pointer) \($0.code.rawValue)" } == expected, "\(component)")
        }
    }

    /// Definitions stored before these keys had a meaning may carry them as anything: they still read.
    @Test func storedDefinitionsWithOddOnesStillRead() throws {
        let odd = #"{"title": "T", "components": [{"select": {"id": "k", "default": "b", "options": [{"id": "a", "default": "yes"}, {"id": "b", "default": 1}], "updates": "whenever"}}, {"section": {"default": 3, "components": []}}]}"#
        #expect(!Fixtures.problems(odd).isEmpty)
        _ = try FormDefinition(json: Array(odd.utf8), reading: .stored)
    }
}
