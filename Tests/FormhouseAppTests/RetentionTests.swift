import Foundation
import Synchronization
import Testing
@testable import FormhouseApp

/// A form's `retentionDays` over real sockets, with the sweep's clock moved forward: exactly the
/// submissions older than the retention go, their files with them, while submissions keep arriving.
@Suite struct RetentionTests {
    /// The claim form kept 30 days, its photo optional so that submissions without one can arrive meanwhile.
    static let keptForm = FileFixtures.claimForm
        .replacingOccurrences(of: #""title": "Claim","#, with: #""title": "Claim", "retentionDays": 30,"#)
        .replacingOccurrences(of: #""required": true, "accept""#, with: #""accept""#)

    @Test func exactlyTheOldSubmissionsAndTheirFilesGoUnderLoad() async throws {
        let server = try await UploadsAPITests.server()
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/claim", json: Self.keptForm).status == 200)

        func submitWithPhoto(_ name: String) async throws -> (submission: String, upload: String) {
            let uploaded = try await UploadsAPITests.upload(client, field: "photo", type: "image/jpeg", FileFixtures.jpeg)
            let upload = try #require(uploaded.object["id"] as? String)
            let reply = try await client.postJSON("/v1/forms/claim/submissions", #"{"values": {"name": "\#(name)", "photo": "\#(upload)"}}"#)
            #expect(reply.status == 201, "\(reply.text)")
            return (try #require(reply.object["id"] as? String), upload)
        }
        var old: [(submission: String, upload: String)] = []
        for index in 0..<6 { old.append(try await submitWithPhoto("old \(index)")) }
        try await Task.sleep(for: .milliseconds(20))
        let boundary = Date()
        try await Task.sleep(for: .milliseconds(20))
        var recent: [(submission: String, upload: String)] = []
        for index in 0..<3 { recent.append(try await submitWithPhoto("recent \(index)")) }

        // Thirty days after the boundary: what came before it is past its retention, while new
        // submissions keep being stored (and none of them is touched).
        let stop = Finished()
        let arriving = Task {
            var stored: [String] = []
            while !stop.flag.load(ordering: .relaxed) {
                let reply = try await client.postJSON("/v1/forms/claim/submissions", #"{"values": {"name": "during"}}"#)
                if reply.status == 201, let id = reply.object["id"] as? String { stored.append(id) }
            }
            return stored
        }
        let swept = try await server.app.sweeper.retention?.sweepOnce(now: boundary.addingTimeInterval(30 * 86_400))
        // The files go in the upload sweeper's pass.
        _ = try await server.app.sweeper.sweepOnce(now: boundary.addingTimeInterval(30 * 86_400))
        stop.flag.store(true, ordering: .relaxed)
        let during = try await arriving.value

        #expect(swept?.submissions == 6)
        #expect(swept?.files == 6)
        for item in old {
            #expect(try await client.admin("GET", "/v1/admin/submissions/\(item.submission)").status == 404)
            #expect(try await server.app.store.upload(id: item.upload) == nil)
            #expect(try await client.admin("GET", "/v1/admin/files/\(item.upload)").status == 404)
        }
        for item in recent {
            #expect(try await client.admin("GET", "/v1/admin/submissions/\(item.submission)").status == 200)
            #expect(try await client.admin("GET", "/v1/admin/files/\(item.upload)").body == FileFixtures.jpeg)
        }
        #expect(!during.isEmpty)
        for id in during { #expect(try await client.admin("GET", "/v1/admin/submissions/\(id)").status == 200) }
        let metrics = try await client.get("/metrics").text
        #expect(metrics.contains(#"formhouse_retention_deleted_total{kind="submissions"}"#))
        await server.finish()
    }

    /// A deleted form's submissions keep to its last version's retention, not forever.
    @Test func aDeletedFormsSubmissionsGoWhenTheirRetentionPasses() async throws {
        let server = try await UploadsAPITests.server()
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/claim", json: Self.keptForm).status == 200)
        let reply = try await client.postJSON("/v1/forms/claim/submissions", #"{"values": {"name": "gone soon"}}"#)
        let sid = try #require(reply.object["id"] as? String)
        #expect(try await client.admin("DELETE", "/v1/admin/forms/claim").status == 204)
        let early = try await server.app.sweeper.retention?.sweepOnce(now: Date().addingTimeInterval(29 * 86_400))
        #expect(early?.submissions == 0)
        #expect(try await client.admin("GET", "/v1/admin/submissions/\(sid)").status == 200)
        let late = try await server.app.sweeper.retention?.sweepOnce(now: Date().addingTimeInterval(31 * 86_400))
        #expect(late?.submissions == 1)
        #expect(try await client.admin("GET", "/v1/admin/submissions/\(sid)").status == 404)
        await server.finish()
    }
}
