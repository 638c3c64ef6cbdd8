import Crypto
import Foundation

/// Signs and verifies webhook requests per Standard Webhooks.
///
/// The signed content is `<webhook-id>.<webhook-timestamp>.<body>`; each signature is
/// `v1,<base64 HMAC-SHA256>`, and several are sent space-separated while a secret is rotated.
public enum WebhookSigner {
    /// The `webhook-signature` header value: one `v1,` signature per secret, space-separated.
    public static func sign(id: String, timestamp: Int64, body: some DataProtocol, secrets: [WebhookSecret]) -> String {
        var header = ""
        for secret in secrets {
            if !header.isEmpty { header += " " }
            header += "v1," + Data(mac(id: id, timestamp: timestamp, body: body, key: secret.symmetricKey)).base64EncodedString()
        }
        return header
    }

    /// Checks a `webhook-signature` header against one secret, as a receiver does.
    ///
    /// True when any `v1` signature in the header matches (compared in constant time) and the
    /// timestamp is within `tolerance` seconds of `now`, which stops replays of old requests.
    public static func verify(
        id: String,
        timestamp: Int64,
        body: some DataProtocol,
        signatureHeader: String,
        secret: WebhookSecret,
        tolerance: TimeInterval = 300,
        now: Date = Date()
    ) -> Bool {
        guard abs(now.timeIntervalSince1970 - Double(timestamp)) <= tolerance else { return false }
        let expected = mac(id: id, timestamp: timestamp, body: body, key: secret.symmetricKey)
        for candidate in signatureHeader.split(separator: " ") {
            guard candidate.hasPrefix("v1,"), let signature = Data(base64Encoded: String(candidate.dropFirst(3))) else {
                continue
            }
            // `==` against bytes is Crypto's constant-time comparison.
            if expected == signature { return true }
        }
        return false
    }

    private static func mac(id: String, timestamp: Int64, body: some DataProtocol, key: SymmetricKey) -> HashedAuthenticationCode<SHA256> {
        var hmac = HMAC<SHA256>(key: key)
        hmac.update(data: Array("\(id).\(timestamp).".utf8))
        hmac.update(data: body)
        return hmac.finalize()
    }
}
