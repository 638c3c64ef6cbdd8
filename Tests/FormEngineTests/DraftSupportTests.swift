import FormEngine
import Testing

/// What drafts need of the engine: RFC 7396 merge patches on values, and judging only what a
/// draft has answered so far.
@Suite struct DraftSupportTests {
    static func json(_ text: String) throws -> JSONValue {
        try JSONValue(parsing: Array(text.utf8))
    }

    /// RFC 7396, Appendix A: (target, patch, result).
    static let rfcExamples: [(String, String, String)] = [
        (#"{"a":"b"}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
        (#"{"a":"b"}"#, #"{"b":"c"}"#, #"{"a":"b","b":"c"}"#),
        (#"{"a":"b"}"#, #"{"a":null}"#, #"{}"#),
        (#"{"a":"b","b":"c"}"#, #"{"a":null}"#, #"{"b":"c"}"#),
        (#"{"a":["b"]}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
        (#"{"a":"c"}"#, #"{"a":["b"]}"#, #"{"a":["b"]}"#),
        (#"{"a":{"b":"c"}}"#, #"{"a":{"b":"d","c":null}}"#, #"{"a":{"b":"d"}}"#),
        (#"{"a":[{"b":"c"}]}"#, #"{"a":[1]}"#, #"{"a":[1]}"#),
        (#"["a","b"]"#, #"["c","d"]"#, #"["c","d"]"#),
        (#"{"a":"b"}"#, #"["c"]"#, #"["c"]"#),
        (#"{"a":"foo"}"#, "null", "null"),
        (#"{"a":"foo"}"#, #""bar""#, #""bar""#),
        (#"{"e":null}"#, #"{"a":1}"#, #"{"e":null,"a":1}"#),
        (#"[1,2]"#, #"{"a":"b","c":null}"#, #"{"a":"b"}"#),
        (#"{}"#, #"{"a":{"bb":{"ccc":null}}}"#, #"{"a":{"bb":{}}}"#),
    ]

    @Test func mergePatchesFollowRFC7396() throws {
        for (target, patch, result) in Self.rfcExamples {
            let patched = try Self.json(target).mergePatched(with: Self.json(patch))
            #expect(patched == (try Self.json(result)), "\(target) + \(patch)")
        }
    }

    @Test func aPatchKeepsTheOrderOfMembersAndAppendsNewOnes() throws {
        let patched = try Self.json(#"{"name":"Ana","mail":"a@b.c","age":3}"#)
            .mergePatched(with: Self.json(#"{"zip":"1","mail":null,"name":"Bo"}"#))
        #expect(String(decoding: patched.serialized(), as: UTF8.self) == #"{"name":"Bo","age":3,"zip":"1"}"#)
    }

    @Test func nestedGroupsAndRepeatsArePatchedAsObjectsAndReplacedAsArrays() throws {
        let values = try Self.json(#"{"address":{"line1":"Rua A","city":"Rio"},"kids":[{"name":"Lia"}]}"#)
        let patched = values.mergePatched(with: try Self.json(#"{"address":{"city":null,"zip":"2"},"kids":[{"name":"Lia"},{"name":"Teo"}]}"#))
        #expect(patched == (try Self.json(#"{"address":{"line1":"Rua A","zip":"2"},"kids":[{"name":"Lia"},{"name":"Teo"}]}"#)))
    }

    static let form = #"""
    {"id": "d", "title": "Draft", "components": [
      {"text": {"id": "name", "title": "Name", "required": true}},
      {"email": {"id": "mail", "title": "Mail", "required": true}},
      {"switch": {"id": "terms", "title": "Terms", "required": true}},
      {"group": {"id": "kids", "title": "Kids", "repeat": {"min": 2, "max": 3}, "components": [
        {"text": {"id": "name", "title": "Name", "required": true}}]}}
    ]}
    """#

    static func errors(_ values: String, partial: Bool) throws -> [String] {
        let definition = try FormDefinition(json: Array(form.utf8))
        let submission = try Submission(json: Array(#"{"values": \#(values)}"#.utf8))
        return definition.validate(submission, options: ValidationOptions(partial: partial)).errors.map { "\($0.field):\($0.code.rawValue)" }
    }

    @Test func aDraftIsJudgedOnWhatItAnswersOnly() throws {
        // Nothing answered: a submission lacks everything, a draft nothing yet.
        #expect(try Self.errors("{}", partial: false).sorted() == ["kids:repeat", "mail:required", "name:required", "terms:required"])
        #expect(try Self.errors("{}", partial: true) == [])
        // What is answered is judged in full: a bad e-mail, a repeat past its max, a blank kid's name.
        #expect(try Self.errors(#"{"mail": "nope", "terms": false, "kids": [{"name": ""}]}"#, partial: true) == ["mail:email"])
        #expect(try Self.errors(#"{"kids": [{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "d"}]}"#, partial: true) == ["kids:repeat"])
        #expect(try Self.errors(#"{"terms": "maybe"}"#, partial: true) == ["terms:boolean"])
    }
}
