import Crypto
import Foundation
import Testing
import Webhooks

// The receiver-side check from docs/webhooks.md ("Verifying a request"), verbatim, so the documentation cannot rot.
func verifyWebhook(id: String, timestamp: String, body: Data, signatureHeader: String, secret: String) -> Bool {
    guard let seconds = Double(timestamp), abs(Date().timeIntervalSince1970 - seconds) <= 300,
          let key = Data(base64Encoded: String(secret.dropFirst("whsec_".count))) else { return false }
    let expected = HMAC<SHA256>.authenticationCode(for: Data("\(id).\(timestamp).".utf8) + body, using: SymmetricKey(data: key))
    return signatureHeader.split(separator: " ").contains { candidate in
        guard candidate.hasPrefix("v1,"), let signature = Data(base64Encoded: String(candidate.dropFirst(3))) else { return false }
        return expected == signature  // constant-time comparison
    }
}

@Suite struct ReceiverSnippetTests {
    @Test func theDocumentedSnippetVerifiesWhatTheSignerSigns() throws {
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
        let timestamp = String(Int(Date().timeIntervalSince1970))
        let body = Data(#"{"type":"submission.accepted"}"#.utf8)
        let signature = WebhookSigner.sign(id: "msg_1", timestamp: Int64(timestamp)!, body: body, secrets: [try WebhookSecret(parsing: secret)])
        let header = "v1,AAAA " + signature
        #expect(verifyWebhook(id: "msg_1", timestamp: timestamp, body: body, signatureHeader: header, secret: secret))
        #expect(!verifyWebhook(id: "msg_2", timestamp: timestamp, body: body, signatureHeader: header, secret: secret))
        #expect(!verifyWebhook(id: "msg_1", timestamp: "1614265330", body: body, signatureHeader: header, secret: secret))
    }
}
