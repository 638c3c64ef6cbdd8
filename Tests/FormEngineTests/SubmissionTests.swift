import Testing
@testable import FormEngine

@Suite struct SubmissionTests {
    @Test func readsTheFullFormworksSnapshotIgnoringClientRules() throws {
        // As the Formworks client encodes it: every component carries its rules; no top-level title.
        let body = #"""
        {"components": [
          {"id": "name", "title": "What is your name?", "description": "", "required": false, "regex": ".*", "placeholder": "", "content": ""},
          {"id": "email", "title": "E-mail", "description": "", "required": false, "regex": ".*", "placeholder": "", "content": "nope"}
        ], "formVersion": 3}
        """#
        let submission = try Fixtures.submission(body)
        #expect(submission.formVersion == 3)
        let result = try Fixtures.example().validate(submission)
        #expect(result.errors.map { "\($0.field) \($0.code)" } == ["name required", "email email", "phone required", "age required"])
    }

    @Test func readsTheShortSnapshotAndTheValuesMap() throws {
        let form = try Fixtures.example()
        let short = try Fixtures.validate(form, #"""
        {"components": [{"id": "name", "content": "Ana"}, {"id": "email", "content": "ana@example.com"},
                        {"id": "phone", "content": "(11) 91234-5678"}, {"id": "age", "content": 30},
                        {"id": "text-what-is-your-mothers-name", "content": "Bia"}]}
        """#)
        #expect(short.isValid, "\(short.errors)")
        #expect(String(decoding: short.values.serialized(), as: UTF8.self)
                == #"{"name":"Ana","email":"ana@example.com","text-what-is-your-mothers-name":"Bia","phone":"(11) 91234-5678","age":"30"}"#)
        let map = try Fixtures.validate(form, #"{"values": {"name": "Ana", "email": "ana@example.com", "phone": "0012345678", "age": "7", "extra": 1}}"#)
        #expect(map.errors == [FieldError(field: "extra", code: .unknown, message: "This form has no field \"extra\".")])
    }

    @Test func snapshotKeyPathIDsNest() throws {
        let submission = try Fixtures.submission(#"""
        {"components": [{"id": "address.line1", "content": "Rua A"}, {"id": "kids[1].name", "content": "B"},
                        {"id": "kids[0].name", "content": "A"}, {"id": "top", "content": true}]}
        """#)
        #expect(JSONValue.object(submission.values) == [
            "address": ["line1": "Rua A"], "kids": [["name": "A"], ["name": "B"]], "top": true,
        ])
    }

    @Test func rejectsBodiesOfNoKnownShape() {
        let cases: [(String, SubmissionError.Code)] = [
            ("{", .malformedJSON), ("[]", .invalidShape), ("{}", .invalidShape), (#"{"values": []}"#, .invalidShape),
            (#"{"components": {}}"#, .invalidShape), (#"{"components": [{"content": 1}]}"#, .invalidShape),
            (#"{"values": {}, "components": []}"#, .invalidShape), (#"{"values": {}, "formVersion": 1.5}"#, .invalidShape),
            (#"{"components": [{"id": "a", "content": 1}, {"id": "a", "content": 2}]}"#, .invalidShape),
            (#"{"components": [{"id": "a", "content": 1}, {"id": "a.b", "content": 2}]}"#, .invalidShape),
        ]
        for (body, code) in cases {
            do {
                _ = try Fixtures.submission(body)
                Issue.record("accepted \(body)")
            } catch let error as SubmissionError {
                #expect(error.code == code, "\(body)")
            } catch {
                Issue.record("\(error)")
            }
        }
        do {
            _ = try Submission(json: Array(#"{"values": {"a": tru}}"#.utf8))
        } catch {
            #expect(error.offset == 17)
        }
    }
}

@Suite struct SnapshotOrderTests {
    @Test func keyPathIDsKeepFirstAppearanceOrder() throws {
        let submission = try Fixtures.submission(#"""
        {"components": [{"id": "address.line1", "content": "a"}, {"id": "name", "content": "n"},
                        {"id": "address.line2", "content": "b"}, {"id": "kids[0].x", "content": 1}, {"id": "kids[0].y", "content": 2}]}
        """#)
        #expect(submission.values.keys == ["address", "name", "kids"])
        #expect(submission.values["address"]?.objectValue?.keys == ["line1", "line2"])
        #expect(JSONValue.object(submission.values)["kids"] == [["x": 1, "y": 2]])
    }
}
