/// Random identifiers: a prefix and base62 characters from the system's secure generator.
public enum RandomID {
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// `prefix` followed by `length` random base62 characters (24 give about 143 bits).
    public static func make(prefix: String, length: Int = 24) -> String {
        // Eight bytes per call to the generator (each call is a system call on Linux); bytes of 248
        // and above are skipped so that `byte % 62` stays uniform.
        var generator = SystemRandomNumberGenerator()
        var bytes = Array(prefix.utf8)
        bytes.reserveCapacity(bytes.count + length)
        var pool: UInt64 = 0
        var poolBytes = 0
        var produced = 0
        while produced < length {
            if poolBytes == 0 {
                pool = generator.next()
                poolBytes = 8
            }
            let byte = UInt8(truncatingIfNeeded: pool)
            pool >>= 8
            poolBytes -= 1
            if byte < 248 {
                bytes.append(alphabet[Int(byte % 62)])
                produced += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
