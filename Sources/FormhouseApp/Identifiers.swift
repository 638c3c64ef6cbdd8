import Foundation

/// Random, URL-safe identifiers for submissions, forms and webhook endpoints.
enum RandomID {
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// `prefix` + 22 base62 characters (about 131 bits from the system's CSPRNG).
    static func make(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = Array(prefix.utf8)
        for _ in 0..<22 { bytes.append(alphabet[Int(generator.next(upperBound: UInt8(alphabet.count)))]) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// RFC 3339 times in UTC with milliseconds, as every JSON body of the API carries them.
enum Timestamp {
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func rfc3339(_ date: Date) -> String { style.format(date) }
}
