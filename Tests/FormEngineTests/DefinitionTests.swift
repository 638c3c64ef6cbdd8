import Testing
@testable import FormEngine

@Suite struct DefinitionTests {
    @Test func decodesTheFormworksExample() throws {
        let form = try Fixtures.example()
        #expect(form.id == "formworks-example")
        #expect(form.title == "Formworks Title")
        #expect(form.inputPaths == ["name", "email", "about", "text-what-is-your-mothers-name", "phone", "age"])
    }

    @Test func generatedIDsAreStableAndDeduplicated() throws {
        let json = #"""
        {"title": "T", "components": [
          {"text": {"title": "Your name"}}, {"text": {"title": "Your name"}}, {"email": {"title": "Your name"}},
          {"text": {"id": "text-your-name-3", "title": "x"}}, {"text": {"title": "Your name"}},
          {"text": {"title": "¿Qué tal, Zoë?"}}, {"text": {"title": "!!!"}}, {"text": {}},
          {"group": {"title": "Home address", "components": [{"text": {"title": "Line 1"}}]}}
        ]}
        """#
        let first = try Fixtures.definition(json)
        #expect(first.inputPaths == ["text-your-name", "text-your-name-2", "email-your-name", "text-your-name-3",
                                     "text-your-name-4", "text-que-tal-zoe", "text", "text-2",
                                     "group-home-address.text-line-1"])
        let again = try Fixtures.definition(json)
        #expect(again.normalizedJSON() == first.normalizedJSON())
        let normalized = first.normalizedJSON()
        let firstComponent = normalized["components"]?.arrayValue?.first?["text"]?.objectValue
        #expect(firstComponent?.keys == ["id", "title"])
        // The normalized definition decodes to itself.
        let reparsed = try FormDefinition(json: normalized.serialized())
        #expect(reparsed.normalizedJSON() == normalized)
        #expect(reparsed.inputPaths == first.inputPaths)
    }

    @Test func reportsEveryProblemWithPointers() {
        let problems = Fixtures.problems(#"""
        {"title": "T", "style": {"accent": "#GG0000", "background": "#FFFFFF"},
         "components": [
          {"text": {"id": "a", "title": "A"}},
          {"text": {"id": "a", "title": "dup"}},
          {"slider": {"id": "s"}},
          {},
          {"text": {"id": "x"}, "email": {"id": "y"}},
          {"text": {"id": "r", "regex": "(unclosed"}},
          {"text": {"id": "len", "minLength": 5, "maxLength": 2}},
          {"integer": {"id": "n", "minValue": 5, "maxValue": 1}},
          {"select": {"id": "sel", "options": [{"title": "no id"}, {"id": "o"}, {"id": "o"}]}},
          {"text": {"id": "v", "visibleWhen": {"field": "nope", "equals": 1}}},
          {"text": {"id": "w", "visibleWhen": {"field": "later", "equals": 1}}},
          {"text": {"id": "later"}},
          {"group": {"id": "rep", "repeat": {"min": 0, "max": 3}, "components": [{"text": {"id": "inner"}}]}},
          {"text": {"id": "c", "visibleWhen": {"field": "rep.inner", "notEmpty": true}}},
          {"date": {"id": "d", "minDate": "2024-02-30"}},
          {"text": {"id": "bad.id"}}
        ]}
        """#)
        let found = problems.map { "\($0.pointer) \($0.code)" }
        #expect(found == [
            "/style/accent badColor",
            "/components/2/slider unknownType",
            "/components/3 componentKeys",
            "/components/4 componentKeys",
            "/components/5/text/regex badRegex",
            "/components/6/text/minLength badBounds",
            "/components/7/integer/minValue badBounds",
            "/components/8/select/options/0 optionWithoutID",
            "/components/8/select/options/2/id duplicateOptionID",
            "/components/14/date/minDate badDate",
            "/components/15/text/id invalidID",
            "/components/1/text/id duplicateID",
            "/components/9/text/visibleWhen/field unknownField",
            "/components/10/text/visibleWhen/field forwardReference",
            "/components/13/text/visibleWhen/field conditionInRepeat",
        ], "\(found)")
        #expect(problems.allSatisfy { !$0.message.isEmpty })
        #expect(problems.allSatisfy { !$0.message.hasSuffix("..") }, "\(problems.map(\.message))")
    }

    @Test func aMultipleSelectRefusesCommasInOptionIDsAtUploadOnly() throws {
        let json = #"""
        {"title": "T", "components": [
          {"select": {"id": "one", "options": [{"id": "a,b", "title": "A"}]}},
          {"select": {"id": "many", "multiple": true, "options": [{"id": "c", "title": "C"}, {"id": "d,e", "title": "D"}]}}
        ]}
        """#
        let problems = Fixtures.problems(json)
        #expect(problems.map { "\($0.pointer) \($0.code)" } == ["/components/1/select/options/1/id badValue"])
        // Its Formworks text "d,e" would read as two choices; a single select's text is the id itself.
        #expect(problems.first?.message.contains("joined by commas") == true)
        // A definition stored before the check is still read.
        #expect(try FormDefinition(json: Array(json.utf8), reading: .stored).inputPaths == ["one", "many"])
    }

    @Test func definitionsThatCouldNeverBeAnsweredAreRefusedAtUpload() throws {
        let json = #"""
        {"title": "T", "components": [
          {"select": {"id": "none", "options": []}},
          {"count": {"id": "n", "minValue": 0.5, "maxValue": 0.7}},
          {"integer": {"id": "i", "minValue": 0.5, "maxValue": 1.5}},
          {"decimal": {"id": "d", "minValue": 0.5, "maxValue": 0.7}}
        ]}
        """#
        #expect(Fixtures.problems(json).map { "\($0.pointer) \($0.code)" } == [
            "/components/0/select/options badValue", "/components/1/count/minValue badBounds",
        ])
        #expect(try FormDefinition(json: Array(json.utf8), reading: .stored).inputPaths == ["none", "n", "i", "d"])
    }

    @Test func rejectsBadTopLevel() {
        #expect(Fixtures.problems("[1]").map(\.code) == [.invalidType])
        #expect(Fixtures.problems("{").map(\.code) == [.malformedJSON])
        #expect(Fixtures.problems(#"{"components": 3}"#).map(\.code) == [.missing, .invalidType])
        #expect(Fixtures.problems(#"{"title": "T", "responseFormat": "medium", "components": []}"#).map(\.pointer) == ["/responseFormat"])
    }

    @Test func pointersEscapeSpecialCharacters() {
        let problems = Fixtures.problems(#"{"title": "T", "components": [{"a/b~c": {}}]}"#)
        #expect(problems.map(\.pointer) == ["/components/0/a~1b~0c"])
    }

    @Test func conditionsResolveInsideGroupsAndRepeats() throws {
        let form = try Fixtures.definition(#"""
        {"title": "T", "components": [
          {"switch": {"id": "ship"}},
          {"group": {"id": "address", "visibleWhen": {"field": "ship", "equals": true}, "components": [
            {"text": {"id": "country"}},
            {"text": {"id": "state", "visibleWhen": {"field": "country", "equals": "US"}}},
            {"text": {"id": "zip", "visibleWhen": {"field": "address.country", "in": ["US", "CA"]}}}
          ]}},
          {"text": {"id": "note", "visibleWhen": {"all": [{"field": "address.country", "notEquals": "BR"}, {"field": "ship", "notEmpty": true}]}}},
          {"group": {"id": "kids", "repeat": {"min": 0, "max": 5}, "components": [
            {"switch": {"id": "school"}},
            {"text": {"id": "grade", "visibleWhen": {"field": "school", "equals": true}}}
          ]}}
        ]}
        """#)
        #expect(form.inputPaths == ["ship", "address.country", "address.state", "address.zip", "note", "kids[].school", "kids[].grade"])
    }
}

@Suite struct DefinitionShapeTests {
    @Test func containerAndConditionShapes() {
        let problems = Fixtures.problems(#"""
        {"id": 7, "title": ["T"], "style": "dark", "components": [
          {"section": {"title": 1}},
          {"group": {"id": "g", "repeat": {"min": 3, "max": 2}, "components": []}},
          {"group": {"id": "h", "repeat": [], "components": "x"}},
          {"text": {"id": "a", "required": "yes", "placeholder": 3}},
          {"text": {"id": "b", "visibleWhen": {"field": "a", "in": "x"}}},
          {"text": {"id": "c", "visibleWhen": {"field": "a", "notEmpty": "yes"}}},
          {"text": {"id": "d", "visibleWhen": {"field": "a", "equals": 1, "notEquals": 2}}},
          {"text": {"id": "e", "visibleWhen": {"all": [], "x": 1}}},
          {"text": {"id": "f", "visibleWhen": {"equals": 1}}},
          {"text": {"id": "i", "visibleWhen": "a"}},
          {"text": {"id": "j", "visibleWhen": {"field": "g", "notEmpty": true}}},
          {"text": {"id": "k", "visibleWhen": {"any": [{"field": "a", "equals": 1}, {"field": "zz", "equals": 1}]}}}
        ]}
        """#)
        #expect(problems.map { "\($0.pointer) \($0.code)" } == [
            "/id invalidType", "/title invalidType", "/style invalidType",
            "/components/0/section/title invalidType", "/components/0/section/components missing",
            "/components/1/group/repeat badBounds",
            "/components/2/group/repeat invalidType", "/components/2/group/components invalidType",
            "/components/3/text/placeholder invalidType", "/components/3/text/required invalidType",
            "/components/4/text/visibleWhen/in badCondition",
            "/components/5/text/visibleWhen/notEmpty badCondition",
            "/components/6/text/visibleWhen badCondition",
            "/components/7/text/visibleWhen badCondition",
            "/components/8/text/visibleWhen/field badCondition",
            "/components/9/text/visibleWhen badCondition",
            "/components/10/text/visibleWhen/field unknownField",
            "/components/11/text/visibleWhen/any/1/field unknownField",
        ], "\(problems.map { "\($0.pointer) \($0.code)" })")
    }

    @Test func idsAreUniquePerLevelOnly() throws {
        let form = try Fixtures.definition(#"""
        {"title": "T", "components": [
          {"text": {"id": "name"}},
          {"group": {"id": "a", "components": [{"text": {"id": "name"}}]}},
          {"group": {"id": "b", "repeat": {"max": 2}, "components": [{"text": {"id": "name"}}]}}
        ]}
        """#)
        #expect(form.inputPaths == ["name", "a.name", "b[].name"])
        let clash = Fixtures.problems(#"{"title": "T", "components": [{"text": {"id": "a"}}, {"section": {"components": [{"group": {"id": "a", "components": []}}]}}]}"#)
        #expect(clash.map(\.pointer) == ["/components/1/section/components/0/group/id"])
    }
}
