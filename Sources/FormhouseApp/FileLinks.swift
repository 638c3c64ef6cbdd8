import Crypto
import FormStore
import Foundation
import Synchronization

/// Signed, expiring links to stored files, for webhook receivers: `GET /v1/files/{id}?expires=…&signature=…`.
/// The signature is HMAC-SHA256 over the id and the expiry, keyed from the server's secret key, so a
/// link outlives restarts, works on every node, and cannot be edited to another file or a later expiry.
final class FileLinks: Sendable {
    private let key: SymmetricKey
    /// Where receivers reach this server (`publicUrl`), without a trailing slash; known once the
    /// server listens when it is derived from the bound port.
    private let base: Mutex<String>
    /// How long a link stays valid.
    let lifetime: TimeInterval

    init(key: SymmetricKey, baseURL: String, lifetime: TimeInterval) {
        self.key = key
        base = Mutex("")
        self.lifetime = lifetime
        self.baseURL = baseURL
    }

    var baseURL: String {
        get { base.withLock { $0 } }
        set { base.withLock { $0 = newValue.hasSuffix("/") ? String(newValue.dropLast()) : newValue } }
    }

    /// A link to the file `id`, valid for ``lifetime`` from `now`.
    func url(for id: String, now: Date = Date()) -> String {
        let expires = Int64(now.timeIntervalSince1970 + lifetime)
        return "\(baseURL)/v1/files/\(id)?expires=\(expires)&signature=\(signature(id, expires))"
    }

    enum Refusal: Equatable {
        case invalid
        case expired
    }

    /// Nil when the link was signed here for `id` and has not expired.
    func check(id: String, expires: String?, signature given: String?, now: Date = Date()) -> Refusal? {
        guard let expires, let seconds = Int64(expires), let given, let tag = Hex.decode(given.utf8), tag.count == 32 else {
            return .invalid
        }
        // swift-crypto compares in constant time: the time taken says nothing about how much of a guess was right.
        guard HMAC<SHA256>.isValidAuthenticationCode(tag, authenticating: Self.message(id, seconds), using: key) else {
            return .invalid
        }
        return Double(seconds) < now.timeIntervalSince1970 ? .expired : nil
    }

    private func signature(_ id: String, _ expires: Int64) -> String {
        Hex.encode(HMAC<SHA256>.authenticationCode(for: Self.message(id, expires), using: key))
    }

    /// What a link's signature covers: the file and the expiry, so neither can be edited.
    private static func message(_ id: String, _ expires: Int64) -> [UInt8] {
        Array("\(id)\n\(expires)".utf8)
    }
}
