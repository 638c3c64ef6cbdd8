import Crypto
import Foundation

/// A Standard Webhooks signing secret: `whsec_` followed by the base64 of the key bytes.
public struct WebhookSecret: Sendable, Hashable, CustomStringConvertible {
    /// The prefix every encoded secret starts with.
    public static let prefix = "whsec_"

    /// The HMAC key: the base64-decoded part of the secret.
    public let keyBytes: [UInt8]

    /// Creates a secret from raw key bytes.
    public init(keyBytes: [UInt8]) {
        self.keyBytes = keyBytes
    }

    /// Parses `whsec_<base64>`; the prefix is optional as Standard Webhooks libraries accept both.
    public init(parsing text: String) throws(WebhookError) {
        let base64 = text.hasPrefix(Self.prefix) ? String(text.dropFirst(Self.prefix.count)) : text
        guard let data = Data(base64Encoded: base64), !data.isEmpty else {
            throw WebhookError(.malformedSecret, "A webhook secret is 'whsec_' followed by base64 key bytes.")
        }
        self.keyBytes = Array(data)
    }

    /// Generates a new secret of 32 random bytes from the system's secure generator.
    public static func generate() -> WebhookSecret {
        let key = SymmetricKey(size: .bits256)
        return WebhookSecret(keyBytes: key.withUnsafeBytes { Array($0) })
    }

    /// The text form, `whsec_<base64>`, shown once to the admin.
    public var encoded: String { Self.prefix + Data(keyBytes).base64EncodedString() }

    /// Redacted, so a secret never lands in a log by accident.
    public var description: String { "whsec_<redacted>" }

    var symmetricKey: SymmetricKey { SymmetricKey(data: keyBytes) }
}
