import Crypto
import FormStore

/// A draft's secret: made once, shown once, stored only as its SHA-256.
enum DraftToken {
    /// `dft_` and 43 base62 characters: about 256 bits from the system's secure generator.
    static func make() -> String {
        RandomID.make(prefix: "dft_", length: 43)
    }

    /// What the store keeps: the lowercase hex SHA-256 of the token.
    static func hash(_ token: String) -> String {
        Hex.encode(SHA256.hash(data: Array(token.utf8)))
    }

    /// Whether `token` is the one `storedHash` was made from. The digests are compared byte by byte
    /// without stopping early, so the time taken says nothing about how close a guess came; a missing
    /// token is compared too, so it takes as long as a wrong one.
    static func matches(_ token: String?, storedHash: String) -> Bool {
        let given = Array(SHA256.hash(data: Array((token ?? "").utf8)))
        return ConstantTime.equal(given, Hex.decode(storedHash.utf8) ?? []) && token != nil
    }

    /// A hash no token has a known preimage of: compared against when no draft was found, so an unknown
    /// draft costs the same work as a wrong token.
    static let absentHash = String(repeating: "0", count: 64)
}
