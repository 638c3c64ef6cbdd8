import Testing
@testable import FormEngine

@Suite struct ContainerTests {
    static let form = #"""
    {"title": "Order", "components": [
      {"text": {"id": "name", "required": true}},
      {"section": {"title": "Shipping", "components": [
        {"switch": {"id": "ship"}},
        {"group": {"id": "address", "visibleWhen": {"field": "ship", "equals": true}, "components": [
          {"text": {"id": "line1", "required": true}},
          {"text": {"id": "country", "required": true}},
          {"usstate": {"id": "state", "required": true, "visibleWhen": {"field": "country", "equals": "US"}}}
        ]}}
      ]}},
      {"group": {"id": "kids", "repeat": {"min": 1, "max": 3}, "components": [
        {"text": {"id": "name", "required": true}},
        {"switch": {"id": "school"}},
        {"integer": {"id": "grade", "required": true, "visibleWhen": {"field": "school", "equals": true}}}
      ]}},
      {"text": {"id": "note", "visibleWhen": {"any": [{"field": "address.country", "in": ["US", "CA"]}, {"field": "name", "equals": "VIP"}]}}}
    ]}
    """#

    @Test func sectionsAreLayoutAndGroupsNest() throws {
        let form = try Fixtures.definition(Self.form)
        #expect(form.inputPaths == ["name", "ship", "address.line1", "address.country", "address.state",
                                    "kids[].name", "kids[].school", "kids[].grade", "note"])
        let result = try Fixtures.validate(form, #"""
        {"values": {"name": "Ana", "ship": "true", "address": {"line1": "1 Main St", "country": "US", "state": "texas"},
                    "kids": [{"name": "Bo", "school": true, "grade": "3"}, {"name": "Cy", "grade": "x"}], "note": "hi"}}
        """#)
        #expect(result.isValid, "\(result.errors)")
        #expect(result.values == [
            "name": "Ana", "ship": true,
            "address": ["line1": "1 Main St", "country": "US", "state": "TX"],
            "kids": [["name": "Bo", "school": true, "grade": 3], ["name": "Cy"]],
            "note": "hi",
        ])
    }

    @Test func hiddenInputsAreNeitherValidatedNorKept() throws {
        let form = try Fixtures.definition(Self.form)
        let result = try Fixtures.validate(form, #"""
        {"values": {"name": "Ana", "ship": false, "address": {"line1": "", "country": "BR", "state": "nowhere"},
                    "kids": [{"name": "Bo", "school": false, "grade": "not a number"}], "note": "dropped"}}
        """#)
        #expect(result.isValid, "\(result.errors)")
        #expect(result.values == ["name": "Ana", "ship": false, "kids": [["name": "Bo", "school": false]]])
    }

    @Test func everyErrorInFormOrderWithKeyPaths() throws {
        let form = try Fixtures.definition(Self.form)
        let result = try Fixtures.validate(form, #"""
        {"values": {"ship": true, "address": {"country": "US", "zip": "1"},
                    "kids": [{"name": "Bo", "school": true}, {"school": "maybe"}, 7], "bogus": 1}}
        """#)
        #expect(result.errors.map { "\($0.field) \($0.code)" } == [
            "name required", "address.line1 required", "address.state required", "address.zip unknown",
            "kids[0].grade required", "kids[1].name required", "kids[1].school boolean", "kids[2] type", "bogus unknown",
        ])
    }

    @Test func repeatBoundsAndShapes() throws {
        let form = try Fixtures.definition(Self.form)
        let none = try Fixtures.validate(form, #"{"values": {"name": "A"}}"#)
        #expect(none.errors.map { "\($0.field) \($0.code)" } == ["kids repeat"])
        let many = try Fixtures.validate(form, #"{"values": {"name": "A", "kids": [{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "d"}]}}"#)
        #expect(many.errors.map { "\($0.field) \($0.code)" } == ["kids repeat"])
        let wrong = try Fixtures.validate(form, #"{"values": {"name": "A", "kids": {"name": "a"}, "address": "x"}}"#)
        #expect(wrong.errors.map { "\($0.field) \($0.code)" } == ["kids type"])
        let shipWrong = try Fixtures.validate(form, #"{"values": {"name": "A", "ship": true, "address": "x", "kids": [{"name": "a"}]}}"#)
        #expect(shipWrong.errors.map { "\($0.field) \($0.code)" } == ["address type"])
    }

    @Test func conditionsReadNormalizedValues() throws {
        let form = try Fixtures.definition(Self.form)
        let vip = try Fixtures.validate(form, #"{"values": {"name": "VIP", "kids": [{"name": "a"}], "note": "n"}}"#)
        #expect(vip.values["note"] == "n")
        let plain = try Fixtures.validate(form, #"{"values": {"name": "Ana", "kids": [{"name": "a"}], "note": "n"}}"#)
        #expect(plain.values["note"] == nil)
        #expect(plain.isValid)
    }

    @Test func snapshotWithKeyPathIDsValidates() throws {
        let form = try Fixtures.definition(Self.form)
        let result = try Fixtures.validate(form, #"""
        {"components": [{"id": "name", "content": "Ana"}, {"id": "ship", "content": "true"},
          {"id": "address.line1", "content": "1 Main"}, {"id": "address.country", "content": "CA"},
          {"id": "kids[0].name", "content": "Bo"}, {"id": "kids[0].school", "content": "false"}]}
        """#)
        #expect(result.isValid, "\(result.errors)")
        #expect(result.values["address"] == ["line1": "1 Main", "country": "CA"])
    }
}

@Suite struct InputPathLookupTests {
    @Test func valuesAtInputPathsExpandRepeats() throws {
        let form = try Fixtures.definition(ContainerTests.form)
        let result = try Fixtures.validate(form, #"""
        {"values": {"name": "Ana", "ship": true, "address": {"line1": "1 Main", "country": "BR"},
                    "kids": [{"name": "Bo", "school": true, "grade": 3}, {"name": "Cy"}]}}
        """#)
        let columns = form.inputPaths.map { result.values.values(atInputPath: $0) }
        #expect(columns == [["Ana"], [true], ["1 Main"], ["BR"], [], ["Bo", "Cy"], [true], [3], []])
    }
}
