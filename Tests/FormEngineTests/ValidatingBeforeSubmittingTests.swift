import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FormEngine
import Testing

// The code of the article "Validating a form before submitting it" (FormEngine.docc), word for word
// but for the text fields the app reads values from, so that the article shows code that compiles
// against the engine and does what it says.

/// A form as the app holds it: compiled once, with the version the server gave it.
struct LoadedForm {
    let id: String
    let definition: FormDefinition
    let version: Int?
}

/// Compiles the body of `GET /v1/forms/{id}`.
func loadForm(id: String, from body: Data) throws -> LoadedForm {
    let json = try JSONValue(parsing: body)
    // The server accepted this definition already: `.stored` skips checks added since.
    let definition = try FormDefinition(json: json, reading: .stored)
    let version = json["version"]?.numberValue.map { Int($0) }
    return LoadedForm(id: id, definition: definition, version: version)
}

func fetchForm(id: String, from server: URL) async throws -> LoadedForm {
    let url = server.appendingPathComponent("v1/forms").appendingPathComponent(id)
    let (data, _) = try await URLSession.shared.data(from: url)
    return try loadForm(id: id, from: data)
}

/// The body to submit: what the person typed, and the version of the form they saw.
func submissionBody(for form: LoadedForm, values: JSONObject) -> JSONValue {
    var body = JSONObject()
    if let version = form.version { body["formVersion"] = .number(Double(version)) }
    body["values"] = .object(values)
    return .object(body)
}

/// What to show under each input, by the input's key path; empty when the form may be sent.
func fieldMessages(for body: JSONValue, in form: LoadedForm) throws -> [String: String] {
    let submission = try Submission(value: body)
    let result = form.definition.validate(submission)
    var messages: [String: String] = [:]
    for error in result.errors where messages[error.field] == nil {
        messages[error.field] = error.message
    }
    return messages
}

/// Sends the body; the server validates it again and answers 201 (stored) or 422 (the same errors).
func submit(_ body: JSONValue, for form: LoadedForm, to server: URL) async throws -> Int {
    let url = server.appendingPathComponent("v1/forms").appendingPathComponent(form.id).appendingPathComponent("submissions")
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = Data(body.serialized())
    let (_, response) = try await URLSession.shared.data(for: request)
    return (response as? HTTPURLResponse)?.statusCode ?? 0
}

@Suite struct ValidatingBeforeSubmittingTests {
    /// What `GET /v1/forms/signup` answers: the normalized definition and its version.
    static let served = Data(#"""
        {"id": "signup", "title": "Sign up", "components": [
          {"text": {"id": "name", "title": "Your name", "required": true}},
          {"email": {"id": "mail", "title": "E-mail", "required": true}},
          {"group": {"id": "address", "title": "Address", "components": [
            {"text": {"id": "postcode", "title": "Postcode", "regex": "[0-9]{5}"}}
          ]}}
        ], "version": 3}
        """#.utf8)

    @Test func showsEachErrorUnderItsInput() throws {
        let form = try loadForm(id: "signup", from: Self.served)
        #expect(form.version == 3)

        var values = JSONObject()
        values["name"] = "Ada"
        values["mail"] = "ada@"
        values["address"] = ["postcode": "123"]
        let body = submissionBody(for: form, values: values)
        #expect(try fieldMessages(for: body, in: form) == [
            "mail": "Please provide a valid e-mail address.",
            "address.postcode": "The value does not have the expected format.",
        ])

        values["mail"] = "ada@example.org"
        values["address"] = ["postcode": "12345"]
        let fixed = submissionBody(for: form, values: values)
        #expect(try fieldMessages(for: fixed, in: form).isEmpty)
        #expect(String(decoding: fixed.serialized(), as: UTF8.self)
            == #"{"formVersion":3,"values":{"name":"Ada","mail":"ada@example.org","address":{"postcode":"12345"}}}"#)
    }
}
