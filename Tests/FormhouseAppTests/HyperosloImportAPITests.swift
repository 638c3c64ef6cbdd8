import Foundation
import Testing
@testable import FormhouseApp

/// `?from=hyperoslo` on a form upload, over real sockets: the body is converted, then saved and
/// served as any definition; what cannot be carried over is a 422 pointing into the body as sent.
@Suite struct HyperosloImportAPITests {
    static func fixture(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/hyperoslo/\(name)")
        return try String(contentsOf: url, encoding: .utf8)
    }

    @Test func anImportedFormIsSavedAndValidatesAsTheLibraryWould() async throws {
        let server = try await InProcessServer()
        let client = server.client
        let saved = try await client.admin("PUT", "/v1/admin/forms/employment?from=hyperoslo", json: try Self.fixture("readme-targets.json"))
        #expect(saved.status == 201, "\(saved.text)")
        let form = try await client.send("GET", "/v1/forms/employment")
        #expect(form.object["title"] as? String == "Group title")
        // Part time hides the bonus; full time shows it, and then it must be a number.
        let partTime = try await client.postJSON("/v1/forms/employment/submissions", #"{"values": {"employment_type": "0", "bonus": "lots"}}"#)
        #expect(partTime.status == 201, "\(partTime.text)")
        let fullTime = try await client.postJSON("/v1/forms/employment/submissions", #"{"values": {"employment_type": "1", "bonus": "lots"}}"#)
        #expect(fullTime.status == 422)
        #expect((fullTime.object["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String } == ["bonus"])
        // POST takes a new id, as for any definition without one.
        let created = try await client.admin("POST", "/v1/admin/forms?from=hyperoslo", json: try Self.fixture("dynamic-formulas.json"))
        #expect(created.status == 201, "\(created.text)")
        #expect(created.header("Location")?.hasPrefix("/v1/admin/forms/form_") == true)
        await server.finish()
    }

    /// `formhouse import hyperoslo FILE`, the built executable: the definition, or the problems and exit 1.
    @Test func theImportCommandPrintsTheDefinitionOrTheProblems() async throws {
        let fixtures = Repo.root.appendingPathComponent("Tests/Fixtures/hyperoslo").path
        let converted = try await Offload.blocking { try OperationsTests.run(["import", "hyperoslo", fixtures + "/calculated-field.json", "--id", "names"]) }
        #expect(converted.status == 0, "\(converted.output)")
        let definition = try #require(try JSONSerialization.jsonObject(with: Data(converted.output.utf8)) as? [String: Any])
        #expect(definition["id"] as? String == "names")
        #expect(converted.output.contains(#"  "title": "Group 1",\#n"#), "\(converted.output)")
        #expect(converted.output.contains(#""formula": "first_name & \" \" & last_name""#))
        let refused = try await Offload.blocking { try OperationsTests.run(["import", "hyperoslo", fixtures + "/dynamic.json"]) }
        #expect(refused.status == 1)
        #expect(refused.output.contains("dynamic.json: /templates/fields: Field templates are added"), "\(refused.output)")
        #expect(refused.output.contains("dynamic.json: /groups/0/sections/0/targets: ") && refused.output.contains("[notCarriedOver]"))
        let unknown = try await Offload.blocking { try OperationsTests.run(["import", "typeform", fixtures + "/dynamic.json"]) }
        #expect(unknown.status != 0)
    }

    @Test func whatCannotBeCarriedOverIsA422IntoTheImport() async throws {
        let server = try await InProcessServer()
        let refused = try await server.client.admin("PUT", "/v1/admin/forms/people?from=hyperoslo", json: try Self.fixture("dynamic.json"))
        #expect(refused.status == 422)
        #expect(refused.object["type"] as? String == "https://formhouse.dev/problems/invalid-definition")
        let errors = refused.object["errors"] as? [[String: Any]] ?? []
        #expect(errors.compactMap { $0["pointer"] as? String } == ["/templates/fields", "/groups/0/sections/0/targets"])
        #expect(errors.compactMap { $0["code"] as? String } == ["notCarriedOver", "notCarriedOver"])
        #expect(try await server.client.send("GET", "/v1/forms/people").status == 404)
        let unknown = try await server.client.admin("PUT", "/v1/admin/forms/people?from=typeform", json: try Self.fixture("readme-targets.json"))
        #expect(unknown.status == 400)
        #expect(unknown.object["type"] as? String == "https://formhouse.dev/problems/invalid-parameter")
        await server.finish()
    }
}
