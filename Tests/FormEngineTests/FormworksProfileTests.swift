import Testing
import FormRegex
@testable import FormEngine

@Suite struct FormworksProfileTests {
    static let form = #"""
    {"id": "everything", "title": "Everything", "style": {"accent": "#112233"}, "components": [
      {"text": {"id": "name", "title": "Name", "required": true, "maxLength": 20}},
      {"section": {"title": "More", "components": [
        {"integer": {"id": "age", "title": "Age", "required": true}},
        {"decimal": {"id": "price", "title": "Price", "maxDecimalPlaces": 2}},
        {"date": {"id": "day", "title": "Day"}},
        {"select": {"id": "color", "title": "Color", "options": [{"id": "red"}, {"id": "a.b"}]}},
        {"select": {"id": "tags", "title": "Tags", "multiple": true, "options": [{"id": "x"}, {"id": "y"}]}},
        {"switch": {"id": "agree", "title": "Agree", "required": true}},
        {"count": {"id": "n", "title": "N"}},
        {"password": {"id": "pw", "title": "Password"}},
        {"usphone": {"id": "tel", "title": "Tel"}},
        {"usstate": {"id": "st", "title": "State"}}
      ]}},
      {"group": {"id": "address", "title": "Address", "components": [
        {"text": {"id": "line1", "title": "Line 1", "required": true}},
        {"text": {"id": "note", "title": "Note", "required": true, "visibleWhen": {"field": "line1", "notEmpty": true}}}
      ]}},
      {"group": {"id": "kids", "title": "Kid", "repeat": {"min": 2, "max": 4}, "components": [
        {"text": {"id": "name", "title": "Name", "required": true}}
      ]}},
      {"group": {"id": "pets", "repeat": {"min": 0, "max": 4}, "components": [{"text": {"id": "kind", "title": "Kind", "required": true}}]}}
    ]}
    """#

    private func components(_ profile: JSONValue) -> [(type: String, props: JSONObject)] {
        (profile["components"]?.arrayValue ?? []).compactMap { c in
            guard let o = c.objectValue, o.count == 1, let props = o.values[0].objectValue else { return nil }
            return (o.keys[0], props)
        }
    }

    @Test func usesOnlyTheFiveTypesWithKeyPathIDs() throws {
        let definition = try Fixtures.definition(Self.form)
        let profile = definition.formworksProfile()
        let list = components(profile)
        #expect(list.allSatisfy { ["text", "multiline", "email", "numerical", "phonenumber"].contains($0.type) })
        #expect(list.map { $0.props["id"]?.stringValue ?? "" } == [
            "name", "age", "price", "day", "color", "tags", "agree", "n", "pw", "tel", "st",
            "address.line1", "address.note", "kids[0].name", "kids[1].name", "pets[0].kind",
        ])
        #expect(list.map { $0.props["title"]?.stringValue ?? "" }.suffix(5) == [
            "Address: Line 1", "Address: Note", "Kid 1: Name", "Kid 2: Name", "pets 1: Kind",
        ])
        // Conditional inputs and repeat items beyond `min` are optional for the client.
        #expect(list.map { $0.props["required"] == true } == [
            true, true, false, false, false, false, true, false, false, false, false, true, false, true, true, false,
        ])
        #expect(profile["title"] == "Everything")
        #expect(profile["responseFormat"] == "long")
        #expect(profile["style"] == ["accent": "#112233"])
        // Every regex hint compiles, and every component carries what a Formworks client decodes.
        for (_, props) in list {
            if let regex = props["regex"]?.stringValue { _ = try Pattern(regex) }
            #expect(props["title"]?.stringValue != nil && props["description"]?.stringValue != nil)
        }
    }

    @Test func hintsAgreeWithTheServerRules() throws {
        let definition = try Fixtures.definition(Self.form)
        let list = components(definition.formworksProfile())
        let good: [String: String] = ["age": "-12", "price": "3.25", "day": "2024-02-29", "color": "a.b", "tags": "x,y",
                                      "agree": "true", "n": "4", "tel": "555-123-4567", "st": "Ohio", "name": "Ana"]
        let bad: [String: String] = ["age": "1.5", "price": "3.255", "day": "24-2-29", "color": "aXb", "tags": "x;y",
                                     "agree": "yes", "tel": "5551234567", "name": String(repeating: "x", count: 21)]
        for (type, props) in list {
            guard let id = props["id"]?.stringValue, let regex = props["regex"]?.stringValue else { continue }
            let pattern = try Pattern(regex)
            if let value = good[id] { #expect(pattern.matches(value), "\(type) \(id) \(value)") }
            if let value = bad[id] { #expect(!pattern.matches(value), "\(type) \(id) \(value)") }
        }
    }

    /// A hint never refuses what the server accepts, where a regex can say so.
    @Test func hintsAreNoStricterThanTheServer() throws {
        let definition = try Fixtures.definition(#"""
        {"title": "T", "components": [
          {"decimal": {"id": "whole", "maxDecimalPlaces": 0}}, {"decimal": {"id": "cents", "maxDecimalPlaces": 2}},
          {"switch": {"id": "on", "required": true}}, {"switch": {"id": "either"}},
          {"email": {"id": "mail", "maxLength": 50}}, {"numerical": {"id": "digits", "minLength": 3}},
          {"text": {"id": "long", "maxLength": 2000}}, {"text": {"id": "short", "minLength": 2, "maxLength": 5}},
          {"password": {"id": "pw", "minLength": 8}}
        ]}
        """#)
        var regexes: [String: String] = [:]
        for (_, props) in components(definition.formworksProfile()) {
            if let id = props["id"]?.stringValue { regexes[id] = props["regex"]?.stringValue }
        }
        for (id, value) in [("whole", "1.0"), ("whole", "12"), ("cents", "1.500"), ("cents", "1.25"), ("on", "true"),
                            ("either", "false"), ("short", "ab"), ("pw", "12345678")] {
            #expect(try Fixtures.validate(definition, #"{"values": {"\#(id)": "\#(value)"}}"#).errors.filter { $0.field == id }.isEmpty, "\(id) \(value)")
            #expect(try Pattern(regexes[id] ?? "").matches(value), "\(id) \(value) \(regexes[id] ?? "none")")
        }
        // What the server refuses anyway.
        #expect(try !Pattern(regexes["on"] ?? "").matches("false"))
        #expect(try !Pattern(regexes["cents"] ?? "").matches("1.255"))
        // A regex would replace a Formworks client's email and numerical rules; a count past 1000 is
        // more than FormRegex compiles: those lengths are left to the server.
        #expect(regexes["mail"] == nil && regexes["digits"] == nil && regexes["long"] == nil)
        #expect(regexes["short"] == #"[\s\S]{2,5}"# && regexes["pw"] == #"[\s\S]{8,}"#)
    }

    @Test func snapshotFromAProfileClientIsUnderstood() throws {
        let definition = try Fixtures.definition(Self.form)
        // What a Formworks client sends back for the profile: strings everywhere, key-path ids.
        let result = try Fixtures.validate(definition, #"""
        {"components": [
          {"id": "name", "title": "Name", "description": "", "required": true, "regex": "", "placeholder": "", "content": "Ana"},
          {"id": "age", "content": "41"}, {"id": "price", "content": "9.99"}, {"id": "day", "content": "2024-01-02"},
          {"id": "color", "content": "red"}, {"id": "tags", "content": "y,x"}, {"id": "agree", "content": "true"},
          {"id": "n", "content": "2"}, {"id": "pw", "content": "secret"}, {"id": "tel", "content": "555-123-4567"},
          {"id": "st", "content": "oh"}, {"id": "address.line1", "content": "1 Main"}, {"id": "address.note", "content": "ring"},
          {"id": "kids[0].name", "content": "A"}, {"id": "kids[1].name", "content": "B"}, {"id": "pets[0].kind", "content": "cat"}
        ]}
        """#)
        #expect(result.isValid, "\(result.errors)")
        #expect(result.values == [
            "name": "Ana", "age": 41, "price": 9.99, "day": "2024-01-02", "color": "red", "tags": ["y", "x"],
            "agree": true, "n": 2, "pw": "secret", "tel": "555-123-4567", "st": "OH",
            "address": ["line1": "1 Main", "note": "ring"], "kids": [["name": "A"], ["name": "B"]], "pets": [["kind": "cat"]],
        ])
    }
}
