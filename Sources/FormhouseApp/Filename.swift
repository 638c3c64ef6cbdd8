import Foundation

/// File names as clients send them and as downloads carry them. A name is only ever metadata: it is
/// cleaned before it is stored and never reaches a path (objects are stored under their upload id).
enum Filename {
    /// Longest name kept, in bytes of UTF-8.
    static let maxBytes = 255

    /// The name without directories, control or bidirectional-override characters, quotes or
    /// backslashes, trimmed of dots and spaces at either end and cut to ``maxBytes``; nil when
    /// nothing is left.
    static func clean(_ raw: String) -> String? {
        let lastComponent = raw.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var kept = String.UnicodeScalarView()
        for scalar in lastComponent.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                continue
            default:
                if scalar == "\"" || scalar == "\\" || scalar == "/" { continue }
                kept.append(scalar)
            }
        }
        var name = String(kept).trimmingCharacters(in: CharacterSet(charactersIn: " .\t"))
        while name.utf8.count > maxBytes { name.removeLast() }
        return name.isEmpty ? nil : name
    }

    /// The `filename` of a `Content-Disposition` field (RFC 6266): `filename*=UTF-8''…` wins over
    /// `filename="…"`; nil when there is none.
    static func fromContentDisposition(_ field: String) -> String? {
        var plain: String?
        var extended: String?
        for parameter in parameters(field) {
            switch parameter.name {
            case "filename*":
                let value = parameter.value
                guard let quote = value.range(of: "''") else { continue }
                let charset = value[..<quote.lowerBound].lowercased()
                guard charset == "utf-8" else { continue }
                extended = String(value[quote.upperBound...]).removingPercentEncoding
            case "filename":
                plain = parameter.value
            default:
                continue
            }
        }
        return extended ?? plain
    }

    /// `attachment; filename="…"; filename*=UTF-8''…` for a download: an ASCII fallback for old
    /// clients, and the exact name for the rest.
    static func contentDisposition(_ name: String?) -> String {
        guard let name, !name.isEmpty else { return "attachment" }
        let ascii = String(name.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" ? Character($0) : "_" })
        let encoded = name.addingPercentEncoding(withAllowedCharacters: rfc5987) ?? ""
        return "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
    }

    /// RFC 5987's attr-char.
    private static let rfc5987 = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$&+-.^_`|~")

    /// `name=value` parameters after the disposition type, values unquoted.
    private static func parameters(_ field: String) -> [(name: String, value: String)] {
        var result: [(String, String)] = []
        var rest = Substring(field)
        // Past the disposition type.
        guard let first = rest.firstIndex(of: ";") else { return [] }
        rest = rest[rest.index(after: first)...]
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == ";" }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped { value.append(character); escaped = false; continue }
                    if character == "\\" { escaped = true; continue }
                    if character == "\"" { break }
                    value.append(character)
                }
                rest = rest.drop { $0 != ";" }
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                value = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            result.append((name, value))
        }
        return result
    }
}
