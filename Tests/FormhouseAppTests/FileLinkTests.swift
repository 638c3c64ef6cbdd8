import Foundation
import Testing
import WebhookReceiver
@testable import FormhouseApp

/// What a webhook receiver does with a file: fetch the payload's signed link and get the bytes that
/// were uploaded; an edited or expired link gets nothing.
@Suite struct FileLinkTests {
    /// The signed `url` of the photo in the first payload the receiver got, as a path and query.
    static func deliveredLink(_ server: InProcessServer, configureFirst: Bool = true) async throws -> (link: String, id: String) {
        let client = server.client
        let receiver = try LoopbackReceiver { _ in ReceiverReply(status: 204) }
        defer { receiver.stop() }
        #expect(try await client.admin("POST", "/v1/admin/forms/claim/webhooks", json: #"{"url": "\#(receiver.url)/hook"}"#).status == 201)
        let upload = try await UploadsAPITests.upload(client, field: "photo", type: "image/jpeg", FileFixtures.jpeg, filename: "a.jpg")
        let id = try #require(upload.object["id"] as? String)
        #expect(try await client.postJSON("/v1/forms/claim/submissions", #"{"values": {"photo": "\#(id)"}}"#).status == 201)
        try await WebhooksAPITests.wait("the delivery") { receiver.count >= 1 }
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(receiver.requests[0].body)) as? [String: Any])
        let photo = ((payload["data"] as? [String: Any])?["values"] as? [String: Any])?["photo"] as? [String: Any]
        #expect(photo?["sha256"] as? String == FileFixtures.sha256Hex(FileFixtures.jpeg))
        let url = try #require(photo?["url"] as? String)
        #expect(url.hasPrefix("http://127.0.0.1:\(server.port)/v1/files/\(id)?expires="), "\(url)")
        let components = try #require(URLComponents(string: url))
        return (components.path + "?" + (components.percentEncodedQuery ?? ""), id)
    }

    @Test func theReceiverFetchesTheSameBytesAndAnEditedLinkIsRefused() async throws {
        let server = try await UploadsAPITests.server()
        let (link, id) = try await Self.deliveredLink(server)
        let fetched = try await server.client.get(link)
        #expect(fetched.status == 200)
        #expect(fetched.body == FileFixtures.jpeg)
        #expect(fetched.header("Content-Disposition")?.hasPrefix("attachment") == true)
        #expect(fetched.header("Content-Security-Policy") == "sandbox")

        let query = try #require(URLComponents(string: "http://x" + link)?.queryItems)
        let expires = try #require(query.first { $0.name == "expires" }?.value)
        let signature = try #require(query.first { $0.name == "signature" }?.value)
        let flipped = String(signature.dropLast()) + (signature.hasSuffix("0") ? "1" : "0")
        for edited in ["/v1/files/\(id)?expires=\(expires)&signature=\(flipped)",
                       "/v1/files/\(id)?expires=\(Int(expires)! + 86_400)&signature=\(signature)",
                       "/v1/files/\(id)?expires=\(expires)",
                       "/v1/files/upl_other?expires=\(expires)&signature=\(signature)"] {
            let refused = try await server.client.get(edited)
            #expect(refused.status == 403, "\(edited)")
            #expect(refused.object["type"] as? String == ProblemType.fileLinkInvalid.uri)
        }
        await server.finish()
    }

    @Test func anExpiredLinkIsRefused() async throws {
        // About a second.
        let server = try await UploadsAPITests.server { $0.fileLinkDays = 0.000012 }
        let (link, _) = try await Self.deliveredLink(server)
        try await Task.sleep(for: .milliseconds(2_200))
        let expired = try await server.client.get(link)
        #expect(expired.status == 410)
        #expect(expired.object["type"] as? String == ProblemType.fileLinkExpired.uri)
        await server.finish()
    }
}
