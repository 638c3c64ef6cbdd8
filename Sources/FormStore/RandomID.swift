import Foundation
import Synchronization

/// Identifiers: a prefix and base62 characters, random from the system's secure generator or led by
/// the time so that rows inserted together sit together in an index.
public enum RandomID {
    /// In ASCII order, so that fixed-width base62 numbers sort as text in numeric order.
    private static let alphabet: StaticString = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

    /// `prefix` followed by `length` random base62 characters (24 give about 143 bits).
    public static func make(prefix: String, length: Int = 24) -> String {
        build(prefix: prefix, timeDigits: 0, milliseconds: 0, randomCount: length)
    }

    /// `prefix`, 8 base62 characters of the milliseconds since 1970, then 16 random ones (about 95
    /// bits). Ids made later sort after earlier ones, so a primary key index grows at its end instead
    /// of taking writes on random pages, which keeps each group commit's write small.
    public static func timeOrdered(prefix: String, at date: Date = Date()) -> String {
        build(prefix: prefix, timeDigits: 8, milliseconds: UInt64(max(0, date.storedMilliseconds)), randomCount: 16)
    }

    /// Writes the id straight into the string's storage, one allocation per id: one is made for every
    /// accepted submission, where building it from arrays costs about 2 % of the request path's CPU.
    private static func build(prefix: String, timeDigits: Int, milliseconds: UInt64, randomCount: Int) -> String {
        var prefix = prefix
        return prefix.withUTF8 { head in
            let total = head.count + timeDigits + randomCount
            return String(unsafeUninitializedCapacity: total) { out in
                alphabet.withUTF8Buffer { digits in
                    _ = out.initialize(from: head)
                    var rest = milliseconds
                    for index in stride(from: head.count + timeDigits - 1, through: head.count, by: -1) {
                        out[index] = digits[Int(rest % 62)]
                        rest /= 62
                    }
                    var position = head.count + timeDigits
                    entropy.withLock { pool in
                        while position < total {
                            // Bytes of 248 and above are skipped so that `byte % 62` stays uniform.
                            let byte = pool.next()
                            if byte < 248 {
                                out[position] = digits[Int(byte % 62)]
                                position += 1
                            }
                        }
                    }
                }
                return total
            }
        }
    }

    private static let entropy = Mutex(EntropyPool())
}

/// Random bytes drawn from the kernel 256 at a time: one system call serves several ids instead of
/// one call per 8 bytes. Each byte is handed out once.
private struct EntropyPool: ~Copyable {
    private var bytes = [UInt8](repeating: 0, count: 256)
    private var used = 256

    mutating func next() -> UInt8 {
        if used == bytes.count { refill() }
        defer { used += 1 }
        return bytes[used]
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
