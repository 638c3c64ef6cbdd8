import Foundation
import Testing
@testable import FormhouseApp

/// Keeps `Public/openapi.json` true: every route the router has is documented, and every documented
/// operation is a route (or a static file).
struct OpenAPITests {
    static let servedAsFiles: Set<String> = ["GET /openapi.json"]

    @Test func documentAndRouterAgree() async throws {
        let server = try await InProcessServer()
        let routes = Set(server.app.router.routes.map { "\($0.0.rawValue) \($0.1)" })
        await server.finish()

        let data = try Data(contentsOf: URL(fileURLWithPath: Repo.publicDirectory + "/openapi.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var documented: Set<String> = []
        for (path, operations) in paths {
            for method in operations.keys where ["get", "head", "post", "put", "delete", "patch", "options"].contains(method) {
                documented.insert("\(method.uppercased()) \(path)")
                let operation = operations[method] as? [String: Any]
                #expect((operation?["responses"] as? [String: Any])?.isEmpty == false, "\(method) \(path) lists no responses")
            }
        }
        #expect(routes.subtracting(documented).sorted() == [], "routes missing from openapi.json")
        #expect(documented.subtracting(routes).subtracting(Self.servedAsFiles).sorted() == [], "documented but not routed")
    }

    /// Clients branch on a problem's `type`: every type the API can answer with is listed in the
    /// document and in the API reference, with the status the reference gives it.
    @Test func everyProblemTypeIsDocumented() throws {
        let document = try String(contentsOfFile: Repo.publicDirectory + "/openapi.json", encoding: .utf8)
        let reference = try String(contentsOfFile: Repo.root.appendingPathComponent("docs/api.md").path, encoding: .utf8)
        for type in ProblemType.allCases {
            #expect(document.contains("\"\(type.uri)\""), "\(type.rawValue) is missing from openapi.json")
            #expect(reference.contains("`\(type.rawValue)`"), "\(type.rawValue) is missing from docs/api.md")
        }
    }

    /// Every admin operation declares bearer security and a 401, and a 403 unless any token may call it.
    @Test func adminOperationsDeclareAuth() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Repo.publicDirectory + "/openapi.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: [String: Any]]])
        for (path, operations) in paths where path.hasPrefix("/v1/admin") {
            for (method, operation) in operations {
                #expect(operation["security"] != nil, "\(method) \(path) has no security")
                #expect((operation["responses"] as? [String: Any])?["401"] != nil, "\(method) \(path) has no 401")
                let anyToken = RoleMatrixTests.expectedNeeds["\(method.uppercased()) \(path)"]?.action == .any
                #expect(((operation["responses"] as? [String: Any])?["403"] != nil) != anyToken, "\(method) \(path): 403 or not")
            }
        }
    }
}
