import Testing
@testable import FormEngine

@Suite struct ValidationTests {
    @Test func formworksRuleForTextTypes() throws {
        let optional = try Fixtures.single("text")
        #expect(try Fixtures.codes(optional, #""""#) == [])
        #expect(try Fixtures.codes(optional, "null") == [])
        #expect(try Fixtures.codes(optional, #""anything""#) == [])
        let required = try Fixtures.single("text", #""required": true"#)
        #expect(try Fixtures.codes(required, #""""#) == [.required])
        #expect(try Fixtures.validate(required, #"{"values": {}}"#).errors.map(\.code) == [.required])
        #expect(try Fixtures.codes(required, #""x""#) == [])
        // An empty optional value is valid even where a regex is set.
        let optionalRegex = try Fixtures.single("multiline", #""regex": "[0-9]{3}""#)
        #expect(try Fixtures.codes(optionalRegex, #""""#) == [])
        #expect(try Fixtures.codes(optionalRegex, #""12""#) == [.pattern])
        #expect(try Fixtures.codes(optionalRegex, #""123""#) == [])
        let requiredRegex = try Fixtures.single("text", #""regex": "[0-9]{3}", "required": true"#)
        #expect(try Fixtures.codes(requiredRegex, #""""#) == [.required])
        #expect(try Fixtures.codes(requiredRegex, #"["a"]"#) == [.type])
    }

    /// A condition reads text as a number only when it is written as one: not `0x5` or `+5`.
    @Test func conditionsReadOnlyNumberTextAsNumbers() throws {
        let form = try Fixtures.definition(#"""
        {"title": "T", "components": [{"text": {"id": "t"}},
          {"text": {"id": "s", "required": true, "visibleWhen": {"field": "t", "equals": 5}}}]}
        """#)
        for shown in ["5", "5.0", "5e0", "05", "0.5e1"] {
            #expect(try Fixtures.validate(form, #"{"values": {"t": "\#(shown)"}}"#).errors.map(\.field) == ["s"], "\(shown)")
        }
        for hidden in ["0x5", "+5", "0x1.4p2", "5.", " 5", "5x", "inf", "nan"] {
            #expect(try Fixtures.validate(form, #"{"values": {"t": "\#(hidden)"}}"#).errors.isEmpty, "\(hidden)")
        }
    }

    @Test func messagesOverrideDefaults() throws {
        let form = try Fixtures.single("email", #""required": true, "messages": {"required": "Precisamos do e-mail.", "email": "E-mail inválido."}"#)
        #expect(try Fixtures.validate(form, #"{"values": {}}"#).errors.map(\.message) == ["Precisamos do e-mail."])
        #expect(try Fixtures.validate(form, #"{"values": {"f": "x"}}"#).errors.map(\.message) == ["E-mail inválido."])
    }

    @Test func exampleFormAcceptsAndRejects() throws {
        let form = try Fixtures.example()
        let ok = try Fixtures.validate(form, #"{"values": {"name": "Ana", "email": "ana@example.com", "phone": "(11) 91234-5678", "age": "30"}}"#)
        #expect(ok.isValid)
        let bad = try Fixtures.validate(form, #"{"values": {"name": "", "email": "Ana@", "phone": "123", "age": "3O"}}"#)
        #expect(bad.errors.map { "\($0.field) \($0.code)" } == ["name required", "email email", "phone phone", "age numerical"])
        #expect(bad.errors.map(\.message) == ["This field is required.", "Please provide a valid e-mail address.",
                                              "Please type in a Brazilian phone number, like (11) 91234-5678.",
                                              "Only numerical characters are accepted."])
    }
}

@Suite struct AnswerShapeTests {
    /// Option ids that are numbers may come as JSON numbers, as text inputs take them.
    @Test func aSelectTakesANumberAsItsText() throws {
        let options = #""options": [{"id": "1", "title": "One"}, {"id": "2", "title": "Two"}, {"id": "2.5", "title": "More"}]"#
        let one = try Fixtures.single("select", options)
        #expect(try Fixtures.validate(one, #"{"values": {"f": 1}}"#).values["f"] == .string("1"))
        #expect(try Fixtures.validate(one, #"{"values": {"f": 2.5}}"#).values["f"] == .string("2.5"))
        #expect(try Fixtures.codes(one, "3") == [.option])
        let many = try Fixtures.single("select", options + #", "multiple": true"#)
        #expect(try Fixtures.validate(many, #"{"values": {"f": [2, "1"]}}"#).values["f"] == .array(["2", "1"]))
    }

    /// `equals` with an array on a multiple select is the same choice in any order.
    @Test func aMultipleSelectConditionIgnoresOrder() throws {
        let form = try Fixtures.definition(#"""
        {"title": "T", "components": [
          {"select": {"id": "m", "multiple": true, "options": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}},
          {"text": {"id": "s", "required": true, "visibleWhen": {"field": "m", "equals": ["b", "a"]}}}]}
        """#)
        for (chosen, shown) in [(#"["a", "b"]"#, true), (#"["b", "a"]"#, true), (#"["a"]"#, false), (#"["a", "b", "c"]"#, false)] {
            let errors = try Fixtures.validate(form, #"{"values": {"m": \#(chosen)}}"#).errors.map(\.field)
            #expect(errors == (shown ? ["s"] : []), "\(chosen)")
        }
    }

    /// A select stores the option id as the definition spells it, even when the client sent another
    /// Unicode normalization of it.
    @Test func selectStoresTheDefinitionsSpelling() throws {
        let options = #""options": [{"id": "caf\u00e9", "title": "C"}, {"id": "tea", "title": "T"}]"#
        let single = try Fixtures.single("select", options)
        let chosen = try Fixtures.validate(single, #"{"values": {"f": "cafe\u0301"}}"#).values["f"]
        #expect(chosen.map { Array(String(decoding: $0.serialized(), as: UTF8.self).utf8) } == Array("\"caf\u{e9}\"".utf8))
        let multiple = try Fixtures.single("select", options + #", "multiple": true"#)
        #expect(try Fixtures.validate(multiple, #"{"values": {"f": ["cafe\u0301", "caf\u00e9", "tea"]}}"#).values["f"]
                == ["caf\u{e9}", "tea"])
    }

    /// Only null and "" (and no choice in a multiple select) are empty answers; an array or object
    /// sent to another input is the wrong type, not a missing answer.
    @Test func containersAreWrongTypesNotEmptyAnswers() throws {
        let text = try Fixtures.single("text", #""required": true"#)
        #expect(try Fixtures.codes(text, "[]") == [.type])
        #expect(try Fixtures.codes(text, "{}") == [.type])
        #expect(try Fixtures.codes(text, #""""#) == [.required])
        #expect(try Fixtures.codes(try Fixtures.single("text"), "[]") == [.type])
        #expect(try Fixtures.codes(try Fixtures.single("switch"), "{}") == [.boolean])
        #expect(try Fixtures.codes(try Fixtures.single("date"), "[]") == [.date])
        let multiple = try Fixtures.single("select", #""required": true, "multiple": true, "options": [{"id": "a", "title": "A"}]"#)
        #expect(try Fixtures.codes(multiple, "[]") == [.required])
        #expect(try Fixtures.codes(multiple, "{}") == [.option])
    }
}

@Suite struct MessageDefinitionTests {
    @Test func messageKeysMustBeErrorCodes() {
        let problems = Fixtures.problems(#"{"title": "T", "components": [{"text": {"id": "a", "messages": {"requird": "x", "required": 3}}}]}"#)
        #expect(problems.map { "\($0.pointer) \($0.code)" } == ["/components/0/text/messages/requird badValue",
                                                                 "/components/0/text/messages/required invalidType"])
    }
}

@Suite struct ConcurrentValidationTests {
    /// One cached definition serves many requests at once.
    @Test func validatesFromManyTasks() async throws {
        let form = try Fixtures.example()
        let good = try Fixtures.submission(#"{"values": {"name": "Ana", "email": "ana@example.com", "phone": "0012345678", "age": "1"}}"#)
        let bad = try Fixtures.submission(#"{"values": {"email": "x"}}"#)
        let outcomes = await withTaskGroup(of: (Bool, Int).self) { group in
            for i in 0..<64 {
                group.addTask {
                    var valid = 0
                    for _ in 0..<200 where form.validate(i % 2 == 0 ? good : bad).isValid { valid += 1 }
                    return (i % 2 == 0, valid)
                }
            }
            return await group.reduce(into: [(Bool, Int)]()) { $0.append($1) }
        }
        #expect(outcomes.count == 64)
        for (even, valid) in outcomes { #expect(valid == (even ? 200 : 0)) }
    }
}
