import FormEngine
import Foundation
import Testing

/// The engine's behaviour pinned in data: every file of `Tests/EngineCases` (its format is in that
/// folder's README), run here as any other client engine (Kotlin, JavaScript) can run it to prove it
/// judges exactly as this one does.
@Suite struct EngineCaseTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("EngineCases")

    /// Every case file, by path under the folder.
    static let files: [String] = {
        let paths = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        return paths.filter { $0.hasSuffix(".json") }.sorted()
    }()

    @Test func theFolderHoldsCasesOfEveryKind() {
        #expect(Self.files.count >= 10, "\(Self.files)")
        for kind in ["formworks", "types", "conditions", "groups", "languages", "formulas", "definitions"] {
            #expect(Self.files.contains { $0.hasPrefix(kind + "/") }, "no case of \(kind)")
        }
    }

    @Test(arguments: files)
    func aCaseFileHoldsAsTheEngineJudges(_ path: String) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent(path)))
        let file = try JSONValue(parsing: bytes)
        let definitionJSON = try #require(file["definition"], "\(path) has no definition")
        let definitionBytes = definitionJSON.serialized()

        if let expected = file["definitionProblems"]?.arrayValue {
            do {
                _ = try FormDefinition(json: definitionBytes)
                Issue.record("\(path): the definition was accepted")
            } catch {
                let problems = error.problems.map { JSONValue.object(Self.object(["pointer": .string($0.pointer), "code": .string($0.code.rawValue)])) }
                #expect(problems == expected, "\(path): \(error.problems)")
            }
            return
        }
        let definition = try FormDefinition(json: definitionBytes)
        let cases = try #require(file["cases"]?.arrayValue, "\(path) has no cases")
        #expect(!cases.isEmpty)
        for (index, testCase) in cases.enumerated() {
            let label = "\(path) case \(index) (\(testCase["name"]?.stringValue ?? "unnamed"))"
            let submission = try Submission(value: try #require(testCase["submission"], "\(label) has no submission"))
            var options = ValidationOptions()
            options.partial = testCase["partial"]?.boolValue ?? false
            if let languages = testCase["languages"]?.arrayValue {
                options.languages = LanguagePriorityList(languages.compactMap(\.stringValue))
            }
            let result = definition.validate(submission, options: options)
            let errors = result.errors.map {
                JSONValue.object(Self.object(["field": .string($0.field), "code": .string($0.code.rawValue), "message": .string($0.message)]))
            }
            #expect(errors == (testCase["errors"]?.arrayValue ?? []), "\(label): \(String(decoding: JSONValue.array(errors).serialized(), as: UTF8.self))")
            if let values = testCase["values"] {
                #expect(result.values == values, "\(label): \(String(decoding: result.values.serialized(), as: UTF8.self))")
            }
            if let computed = testCase["computed"] {
                #expect(JSONValue.object(result.computed) == computed, "\(label): \(String(decoding: JSONValue.object(result.computed).serialized(), as: UTF8.self))")
            }
        }
    }

    static func object(_ members: KeyValuePairs<String, JSONValue>) -> JSONObject {
        var object = JSONObject()
        for (key, value) in members { object[key] = value }
        return object
    }
}
