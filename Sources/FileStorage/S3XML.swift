import Foundation

/// The little of S3's XML that the client reads and writes: the text of a named element.
enum S3XML {
    /// The unescaped text of the first `<name>…</name>` element in `document`, or nil.
    static func text(of name: String, in document: [UInt8]) -> String? {
        let text = String(decoding: document, as: UTF8.self)
        guard let open = text.range(of: "<\(name)>"),
              let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex) else { return nil }
        return unescape(text[open.upperBound..<close.lowerBound])
    }

    /// `text` with the characters XML reserves replaced by their entities.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    private static func unescape(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        return text
            .replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&#34;", with: "\"")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
