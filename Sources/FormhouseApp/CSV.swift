import FormEngine

/// RFC 4180 rows with spreadsheet formula injection neutralized.
enum CSV {
    /// Cells already neutralized where needed (see ``neutralized(_:)``); this only quotes.
    static func row(_ cells: [String]) -> [UInt8] {
        var out: [UInt8] = []
        for (i, cell) in cells.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out += escape(cell)
        }
        out += [0x0D, 0x0A]
        return out
    }

    /// Text a spreadsheet could run as a formula gets a leading `'`: text starting with `=`, `+`, `-`,
    /// `@` (or their fullwidth forms), tab, CR or LF, also after leading spaces, since importers may
    /// trim them. Only text: a typed number such as -5 is no formula and stays as stored.
    static func neutralized(_ text: String) -> String {
        for scalar in text.unicodeScalars {
            if "\t\r\n".unicodeScalars.contains(scalar) { return "'" + text }
            if scalar.properties.isWhitespace { continue }
            return "=+-@＝＋－＠".unicodeScalars.contains(scalar) ? "'" + text : text
        }
        return text
    }

    static func escape(_ text: String) -> [UInt8] {
        let needsQuotes = text.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
        guard needsQuotes else { return Array(text.utf8) }
        return Array(("\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"").utf8)
    }

    static func cell(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: return ""
        case .string(let s)?: return neutralized(s)
        case .bool(let b)?: return b ? "true" : "false"
        case let other?:
            // An input's value is an object only for a file input: the cell holds its id (a file
            // is downloaded by id, GET /v1/admin/files/{id}), several ids space-separated.
            if let ids = fileIDs(other) { return neutralized(ids.joined(separator: " ")) }
            return String(decoding: other.serialized(), as: UTF8.self)
        }
    }

    /// The upload ids of a file input's value (one file object, or an array of them); nil otherwise.
    private static func fileIDs(_ value: JSONValue) -> [String]? {
        func id(_ item: JSONValue) -> String? {
            guard let object = item.objectValue, object["sha256"] != nil else { return nil }
            return object["id"]?.stringValue
        }
        if let single = id(value) { return [single] }
        guard let items = value.arrayValue, !items.isEmpty else { return nil }
        let ids = items.compactMap(id)
        return ids.count == items.count ? ids : nil
    }
}
