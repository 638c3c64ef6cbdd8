import Crypto
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Encrypts webhook secrets at rest (ChaCha20-Poly1305), so a database dump alone does not hand them out.
///
/// Sealed text is `v1.<base64(nonce | ciphertext | tag)>`. The associated data (an endpoint id, say)
/// binds a sealed secret to its row: copied onto another row it no longer opens.
public struct SecretBox: Sendable {
    private static let version = "v1."
    private let key: SymmetricKey

    /// Uses a 32-byte key.
    public init(keyBytes: [UInt8]) throws(WebhookError) {
        guard keyBytes.count == 32 else {
            throw WebhookError(.invalidKey, "The secret-encryption key must be 32 bytes, got \(keyBytes.count).")
        }
        self.key = SymmetricKey(data: keyBytes)
    }

    /// Uses a key given as base64 of 32 bytes, as configuration supplies it.
    public init(base64Key: String) throws(WebhookError) {
        guard let data = Data(base64Encoded: base64Key.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw WebhookError(.invalidKey, "The secret-encryption key must be base64 of 32 bytes.")
        }
        try self.init(keyBytes: Array(data))
    }

    /// Reads the key file at `url`, or creates it with a new random key, readable by the owner only (0600).
    public static func loadOrCreateKey(at url: URL) throws(WebhookError) -> SecretBox {
        let path = url.path
        #if canImport(Glibc)
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        #else
        let fd = Darwin.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        #endif
        if fd >= 0 {
            let encoded = Array((SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString() + "\n").utf8)
            let written = encoded.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            let synced = fsync(fd)
            close(fd)
            guard written == encoded.count, synced == 0 else {
                unlink(path)
                throw WebhookError(.invalidKey, "Could not write the secret-encryption key file at \(path).")
            }
        } else if errno != EEXIST {
            throw WebhookError(.invalidKey, "Could not create the secret-encryption key file at \(path): \(String(cString: strerror(errno))).")
        }
        guard let contents = try? String(contentsOf: url, encoding: .utf8) else {
            throw WebhookError(.invalidKey, "Could not read the secret-encryption key file at \(path).")
        }
        do {
            return try SecretBox(base64Key: contents)
        } catch {
            // The path, so that an operator knows which file (an empty one is left by a crash while
            // it was first written, before any secret was sealed with it).
            throw WebhookError(.invalidKey, "The secret-encryption key file at \(path) is not usable: \(error.detail) "
                + "If no webhook endpoint exists yet, delete it and a new key is made; otherwise restore it.")
        }
    }

    /// A key for another purpose (HKDF-SHA256 over this one with `purpose` as its info), so the one
    /// stored key serves several uses without any two sharing a key.
    public func derivedKey(for purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Data(purpose.utf8), outputByteCount: 32)
    }

    /// Encrypts a secret; `context` (such as the endpoint id) must be given again to open it.
    public func seal(_ secret: WebhookSecret, context: String = "") throws(WebhookError) -> String {
        guard let box = try? ChaChaPoly.seal(secret.keyBytes, using: key, authenticating: Array(context.utf8)) else {
            throw WebhookError(.invalidKey, "The secret could not be encrypted.")
        }
        return Self.version + box.combined.base64EncodedString()
    }

    /// Decrypts a sealed secret; fails when the key, the context or the data is not the one sealed.
    public func open(_ sealed: String, context: String = "") throws(WebhookError) -> WebhookSecret {
        guard sealed.hasPrefix(Self.version),
              let combined = Data(base64Encoded: String(sealed.dropFirst(Self.version.count))),
              let box = try? ChaChaPoly.SealedBox(combined: combined),
              let plain = try? ChaChaPoly.open(box, using: key, authenticating: Array(context.utf8))
        else {
            throw WebhookError(.sealedSecretUnreadable, "A stored webhook secret does not decrypt with the configured key.")
        }
        return WebhookSecret(keyBytes: Array(plain))
    }
}
