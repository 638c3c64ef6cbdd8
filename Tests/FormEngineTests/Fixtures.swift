import Foundation
@testable import FormEngine

/// Test helpers: build definitions and submissions from JSON text.
enum Fixtures {
    static func definition(_ json: String) throws -> FormDefinition {
        try FormDefinition(json: Array(json.utf8))
    }

    static func problems(_ json: String) -> [DefinitionProblem] {
        do {
            _ = try FormDefinition(json: Array(json.utf8))
            return []
        } catch {
            return error.problems
        }
    }

    static func submission(_ json: String) throws -> Submission {
        try Submission(json: Array(json.utf8))
    }

    static func validate(_ definition: FormDefinition, _ json: String) throws -> ValidationResult {
        definition.validate(try submission(json))
    }

    /// A one-input form: `{"<type>": {"id": "f", <props>}}`.
    static func single(_ type: String, _ props: String = "") throws -> FormDefinition {
        let extra = props.isEmpty ? "" : ", " + props
        return try definition(#"{"title": "T", "components": [{"\#(type)": {"id": "f", "title": "F"\#(extra)}}]}"#)
    }

    /// Validates `{"values": {"f": <value>}}` and returns the error codes.
    static func codes(_ definition: FormDefinition, _ value: String) throws -> [FieldError.Code] {
        try validate(definition, #"{"values": {"f": \#(value)}}"#).errors.map(\.code)
    }

    static var exampleURL: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/forms/formworks-example.json")
    }

    static func example() throws -> FormDefinition {
        try FormDefinition(json: Array(try Data(contentsOf: exampleURL)))
    }
}
