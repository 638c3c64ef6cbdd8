/// Random identifiers: a prefix and base62 characters from the system's secure generator.
public enum RandomID {
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// `prefix` followed by `length` random base62 characters (24 give about 143 bits).
    public static func make(prefix: String, length: Int = 24) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = Array(prefix.utf8)
        bytes.reserveCapacity(bytes.count + length)
        for _ in 0..<length {
            bytes.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
