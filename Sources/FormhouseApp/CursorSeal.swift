import Crypto
import FormStore

/// Paging cursors sealed with a MAC over the list they page (`scope`): a cursor cut short, edited,
/// made up or taken from another list is refused (400 `invalid-cursor`) instead of silently paging
/// from the wrong place. The token is the store's own cursor, a dot, and 16 bytes of
/// HMAC-SHA256 in hex; the key is derived from the server's secret key, so cursors outlive restarts.
struct CursorSeal: Sendable {
    private let key: SymmetricKey

    init(key: SymmetricKey) { self.key = key }

    func seal(_ inner: String, scope: String) -> String {
        inner + "." + Hex.encode(tag(inner, scope))
    }

    /// The store's cursor inside `token`, or nil when the token was not sealed here for `scope`.
    func open(_ token: String, scope: String) -> String? {
        guard token.utf8.count <= 2_048, let dot = token.utf8.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        let inner = String(token[..<dot])
        guard let given = Hex.decode(token.utf8[token.utf8.index(after: dot)...]), given.count == 16 else {
            return nil
        }
        // Every byte is compared, so the time taken says nothing about how much of a guess was right.
        var difference: UInt8 = 0
        for (a, b) in zip(tag(inner, scope), given) { difference |= a ^ b }
        return difference == 0 ? inner : nil
    }

    private func tag(_ inner: String, _ scope: String) -> [UInt8] {
        var mac = HMAC<SHA256>(key: key)
        mac.update(data: Array(scope.utf8) + [0] + Array(inner.utf8))
        return Array(Array(mac.finalize()).prefix(16))
    }
}
