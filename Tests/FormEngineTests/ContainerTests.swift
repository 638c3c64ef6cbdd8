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

extension ContainerTests {
    static let optionalKids = #"""
    {"title": "T", "components": [
      {"group": {"id": "kids", "repeat": {"min": 0, "max": 2}, "components": [
        {"text": {"id": "name", "required": true}},
        {"group": {"id": "pet", "components": [{"text": {"id": "kind"}}]}}
      ]}},
      {"text": {"id": "other"}}
    ]}
    """#

    /// A Formworks snapshot sends every entry the profile shows, so an optional entry left blank is
    /// no item: its inputs' `required` does not apply and nothing is stored for it.
    @Test func blankOptionalRepeatEntriesAreNoItems() throws {
        let form = try Fixtures.definition(Self.optionalKids)
        let snapshot = try Fixtures.validate(form, #"""
        {"components": [{"id": "kids[0].name", "content": ""}, {"id": "kids[0].pet.kind", "content": ""}, {"id": "other", "content": "x"}]}
        """#)
        #expect(snapshot.isValid, "\(snapshot.errors)")
        #expect(snapshot.values == ["kids": [], "other": "x"])
        let values = try Fixtures.validate(form, #"{"values": {"kids": [{"name": "Bo"}, {"name": "", "pet": {"kind": ""}}, null, {}]}}"#)
        #expect(values.isValid, "\(values.errors)")
        #expect(values.values == ["kids": [["name": "Bo"]]])
        // A blank item among the required ones is still an item, and its inputs still required.
        let required = try Fixtures.definition(Self.optionalKids.replacingOccurrences(of: #""min": 0"#, with: #""min": 1"#))
        let blank = try Fixtures.validate(required, #"{"values": {"kids": [{"name": ""}]}}"#)
        #expect(blank.errors.map { "\($0.field) \($0.code)" } == ["kids[0].name required"])
        // A filled item after a blank one keeps its own index in errors.
        let later = try Fixtures.validate(form, #"{"values": {"kids": [{}, {"pet": {"kind": "cat"}}]}}"#)
        #expect(later.errors.map { "\($0.field) \($0.code)" } == ["kids[1].name required"])
        // Not sending the repeat, or only blanks, stores no items, as [] (as it always did).
        #expect(try Fixtures.validate(form, #"{"values": {"other": "x"}}"#).values == ["kids": [], "other": "x"])
        #expect(try Fixtures.validate(form, #"{"values": {"kids": [{}]}}"#).values == ["kids": []])
        // An unknown key makes an item of it, reported as such.
        let unknown = try Fixtures.validate(form, #"{"values": {"kids": [{"bogus": ""}]}}"#)
        #expect(unknown.errors.map { "\($0.field) \($0.code)" } == ["kids[0].name required", "kids[0].bogus unknown"])
        // Anything that is not null or an object stays a wrong item.
        #expect(try Fixtures.validate(form, #"{"values": {"kids": [""]}}"#).errors.map(\.field) == ["kids[0]"])
    }

    /// Items past a repeat's `max` are refused with the count and still checked, so every error of
    /// the submission is listed at once.
    @Test func itemsPastTheMaximumAreStillChecked() throws {
        let form = try Fixtures.definition(Self.optionalKids)
        let result = try Fixtures.validate(form, #"{"values": {"kids": [{"name": "a"}, {"name": "b"}, {"zzz": 1}, "str"]}}"#)
        #expect(result.errors.map { "\($0.field) \($0.code)" } == [
            "kids repeat", "kids[2].name required", "kids[2].zzz unknown", "kids[3] type",
        ])
    }

    /// `equals`/`in` on a multiple select test whether the option is among the chosen; a condition on
    /// a `usstate` compares with the stored code, whichever way the definition spells the state; a
    /// visible switch left alone reads as false.
    @Test func conditionsOnMultipleSelectsStatesAndSwitches() throws {
        let form = try Fixtures.definition(#"""
        {"title": "T", "components": [
          {"select": {"id": "m", "multiple": true, "options": [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}]}},
          {"text": {"id": "ifA", "required": true, "visibleWhen": {"field": "m", "equals": "a"}}},
          {"text": {"id": "ifAOrB", "required": true, "visibleWhen": {"field": "m", "in": ["a", "b"]}}},
          {"text": {"id": "notA", "required": true, "visibleWhen": {"field": "m", "notEquals": "a"}}},
          {"usstate": {"id": "st"}},
          {"text": {"id": "texan", "required": true, "visibleWhen": {"field": "st", "equals": "Texas"}}},
          {"switch": {"id": "more"}},
          {"text": {"id": "why", "required": true, "visibleWhen": {"field": "more", "equals": false}}},
          {"switch": {"id": "consent", "required": true}},
          {"text": {"id": "whyNot", "required": true, "visibleWhen": {"field": "consent", "equals": false}}}
        ]}
        """#)
        func missing(_ values: String) throws -> [String] {
            try Fixtures.validate(form, #"{"values": \#(values)}"#).errors.filter { $0.code == .required }.map(\.field)
        }
        let on = #""more": true, "consent": true"#
        #expect(try missing(#"{"m": ["b", "a"], "st": "tx", \#(on)}"#) == ["ifA", "ifAOrB", "texan"])
        #expect(try missing(#"{"m": ["b"], \#(on)}"#) == ["ifAOrB", "notA"])
        #expect(try missing(#"{"m": "a,b", \#(on)}"#) == ["ifA", "ifAOrB"])
        // Off, however it is sent: absent, "", false; a required switch that is off is refused and
        // still reads as off.
        for off in ["", #", "more": """#, #", "more": false"#, #", "more": "false""#] {
            #expect(try missing(#"{"m": ["a"], "ifA": "x", "ifAOrB": "x", "consent": true\#(off)}"#) == ["why"], "\(off)")
        }
        for off in ["", #", "consent": """#, #", "consent": false"#] {
            #expect(try missing(#"{"m": ["a"], "ifA": "x", "ifAOrB": "x", "more": true\#(off)}"#) == ["consent", "whyNot"], "\(off)")
        }
    }
}

@Suite struct InputPathLookupTests {
    @Test func aRepeatsColumnsLineUpItemByItem() throws {
        let form = try Fixtures.definition(ContainerTests.form)
        let result = try Fixtures.validate(form, #"""
        {"values": {"name": "Ana", "ship": true, "address": {"line1": "1 Main", "country": "BR"},
                    "kids": [{"name": "Bo", "school": true, "grade": 3}, {"name": "Cy"}]}}
        """#)
        let columns = form.inputPaths.map { result.values.value(atInputPath: $0) }
        // Cy has no school and no grade: null in his place, not Bo's answers read as his.
        #expect(columns == ["Ana", true, "1 Main", "BR", nil, ["Bo", "Cy"], [true, nil], [3, nil], nil])
    }

    @Test func aRepeatInARepeatGivesAnArrayPerItem() throws {
        let form = try Fixtures.definition(#"""
        {"title": "Pets", "components": [{"group": {"id": "kids", "repeat": {"max": 5}, "components": [
          {"text": {"id": "nm"}},
          {"group": {"id": "pets", "repeat": {"max": 5}, "components": [{"text": {"id": "pn"}}]}}
        ]}}]}
        """#)
        let result = try Fixtures.validate(form, #"""
        {"values": {"kids": [{"nm": "A", "pets": [{"pn": "a1"}, {"pn": "a2"}]}, {"nm": "B", "pets": [{"pn": "b1"}]},
                             {"pets": [{"pn": "c1"}]}]}}
        """#)
        #expect(result.isValid, "\(result.errors)")
        #expect(form.inputPaths == ["kids[].nm", "kids[].pets[].pn"])
        #expect(result.values.value(atInputPath: "kids[].nm") == ["A", "B", nil])
        #expect(result.values.value(atInputPath: "kids[].pets[].pn") == [["a1", "a2"], ["b1"], ["c1"]])
        let empty: JSONValue = [:]
        #expect(empty.value(atInputPath: "kids[].nm") == nil)
    }
}
