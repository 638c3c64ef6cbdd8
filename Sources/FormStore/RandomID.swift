import Foundation
import Synchronization

/// Identifiers: a prefix and base62 characters, random from the system's secure generator or led by
/// the time so that rows inserted together sit together in an index.
public enum RandomID {
    /// In ASCII order, so that fixed-width base62 numbers sort as text in numeric order.
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// `prefix` followed by `length` random base62 characters (24 give about 143 bits).
    public static func make(prefix: String, length: Int = 24) -> String {
        var bytes = Array(prefix.utf8)
        bytes.reserveCapacity(bytes.count + length)
        appendRandom(length, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `prefix`, 8 base62 characters of the milliseconds since 1970, then 16 random ones (about 95
    /// bits). Ids made later sort after earlier ones, so a primary key index grows at its end instead
    /// of taking writes on random pages, which keeps each group commit's write small.
    public static func timeOrdered(prefix: String, at date: Date = Date()) -> String {
        var bytes = Array(prefix.utf8)
        bytes.reserveCapacity(bytes.count + 24)
        var milliseconds = UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded(.down)))
        var digits = [UInt8](repeating: alphabet[0], count: 8)
        for index in stride(from: 7, through: 0, by: -1) {
            digits[index] = alphabet[Int(milliseconds % 62)]
            milliseconds /= 62
        }
        bytes.append(contentsOf: digits)
        appendRandom(16, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `count` uniform base62 characters; bytes of 248 and above are skipped so that
    /// `byte % 62` stays uniform.
    private static func appendRandom(_ count: Int, to bytes: inout [UInt8]) {
        var produced = 0
        while produced < count {
            let batch = entropy.withLock { $0.take(count - produced + 4) }
            for byte in batch where byte < 248 && produced < count {
                bytes.append(alphabet[Int(byte % 62)])
                produced += 1
            }
        }
    }

    private static let entropy = Mutex(EntropyPool())
}

/// Random bytes drawn from the kernel 256 at a time: one system call serves several ids instead of
/// one call per 8 bytes.
private struct EntropyPool: ~Copyable {
    private var bytes = [UInt8](repeating: 0, count: 256)
    private var used = 256

    mutating func take(_ count: Int) -> ArraySlice<UInt8> {
        if used == bytes.count { refill() }
        let end = min(bytes.count, used + count)
        defer { used = end }
        return bytes[used..<end]
    }

    private mutating func refill() {
        let filled = bytes.withUnsafeMutableBytes { getentropy($0.baseAddress, $0.count) }
        if filled != 0 {
            var generator = SystemRandomNumberGenerator()
            for index in bytes.indices { bytes[index] = generator.next() }
        }
        used = 0
    }
}
