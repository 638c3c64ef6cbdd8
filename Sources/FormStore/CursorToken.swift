import Foundation

/// The opaque paging token: base64url (no padding) of `"<milliseconds>:<id>"`.
enum CursorToken {
    static func encode(milliseconds: Int64, id: String) -> String {
        let base64 = Data("\(milliseconds):\(id)".utf8).base64EncodedString()
        return String(base64.compactMap { character -> Character? in
            switch character {
            case "+": "-"
            case "/": "_"
            case "=": nil
            default: character
            }
        })
    }

    static func decode(_ token: String) -> (Int64, String)? {
        guard !token.isEmpty, token.count <= 1024 else { return nil }
        var base64 = String(token.map { character -> Character in
            switch character {
            case "-": "+"
            case "_": "/"
            default: character
            }
        })
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8),
              let colon = text.firstIndex(of: ":"),
              let milliseconds = Int64(text[..<colon])
        else { return nil }
        let id = String(text[text.index(after: colon)...])
        guard !id.isEmpty else { return nil }
        return (milliseconds, id)
    }
}
