import Foundation
import Testing
import Webhooks

@Suite struct WebhookSignerTests {
    let specSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    let specID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
    let specTimestamp: Int64 = 1_614_265_330
    let specBody = Array(#"{"test": 2432232314}"#.utf8)

    @Test func standardWebhooksVector() throws {
        let secret = try WebhookSecret(parsing: specSecret)
        let signature = WebhookSigner.sign(id: specID, timestamp: specTimestamp, body: specBody, secrets: [secret])
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func verifyAcceptsTheSpecSignatureAtItsTime() throws {
        let secret = try WebhookSecret(parsing: specSecret)
        let now = Date(timeIntervalSince1970: TimeInterval(specTimestamp) + 10)
        #expect(WebhookSigner.verify(
            id: specID, timestamp: specTimestamp, body: specBody,
            signatureHeader: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", secret: secret, now: now))
    }

    @Test func verifyRejectsTamperingWrongSecretAndStaleTimestamps() throws {
        let secret = try WebhookSecret(parsing: specSecret)
        let now = Date(timeIntervalSince1970: TimeInterval(specTimestamp))
        let header = WebhookSigner.sign(id: specID, timestamp: specTimestamp, body: specBody, secrets: [secret])
        #expect(!WebhookSigner.verify(id: specID, timestamp: specTimestamp, body: Array(#"{"test": 2432232315}"#.utf8),
                                      signatureHeader: header, secret: secret, now: now))
        #expect(!WebhookSigner.verify(id: "msg_other", timestamp: specTimestamp, body: specBody,
                                      signatureHeader: header, secret: secret, now: now))
        #expect(!WebhookSigner.verify(id: specID, timestamp: specTimestamp, body: specBody,
                                      signatureHeader: header, secret: WebhookSecret.generate(), now: now))
        #expect(!WebhookSigner.verify(id: specID, timestamp: specTimestamp, body: specBody,
                                      signatureHeader: header, secret: secret, now: now.addingTimeInterval(301)))
        #expect(!WebhookSigner.verify(id: specID, timestamp: specTimestamp, body: specBody,
                                      signatureHeader: "v2," + header.dropFirst(3), secret: secret, now: now))
    }

    @Test func rotationSendsOneSignaturePerSecretAndEitherVerifies() {
        let old = WebhookSecret.generate()
        let new = WebhookSecret.generate()
        let now = Date()
        let timestamp = Int64(now.timeIntervalSince1970)
        let header = WebhookSigner.sign(id: "msg_1", timestamp: timestamp, body: specBody, secrets: [new, old])
        let parts = header.split(separator: " ")
        #expect(parts.count == 2)
        #expect(parts.allSatisfy { $0.hasPrefix("v1,") })
        #expect(WebhookSigner.verify(id: "msg_1", timestamp: timestamp, body: specBody, signatureHeader: header, secret: old, now: now))
        #expect(WebhookSigner.verify(id: "msg_1", timestamp: timestamp, body: specBody, signatureHeader: header, secret: new, now: now))
    }
}

@Suite struct WebhookSecretTests {
    @Test func generatedSecretsAre32RandomBytesWithPrefix() throws {
        let secret = WebhookSecret.generate()
        #expect(secret.keyBytes.count == 32)
        #expect(secret.encoded.hasPrefix("whsec_"))
        #expect(try WebhookSecret(parsing: secret.encoded) == secret)
        #expect(WebhookSecret.generate() != secret)
        #expect(!"\(secret)".contains(secret.encoded))
    }

    @Test func malformedSecretsAreRejectedWithACode() {
        for text in ["whsec_", "whsec_!!notbase64", ""] {
            #expect(throws: WebhookError(.malformedSecret, "A webhook secret is 'whsec_' followed by base64 key bytes.")) {
                try WebhookSecret(parsing: text)
            }
        }
    }
}
