/// A submission body reduced to the parts that carry values, read in one pass over the bytes.
///
/// Snapshot components keep only `id` and `content`; every other member (titles, descriptions, the
/// client's own rules) is syntax-checked and skipped without building strings.
struct SubmissionBody {
    struct Item {
        var id: JSONValue?
        var content: JSONValue?
        var isObject: Bool
    }

    enum Components {
        case items([Item])
        case other(JSONValue)
    }

    var formVersion: JSONValue?
    var values: JSONValue?
    var components: Components?

    init() {}

    /// The same reduction from an already parsed body; nil when it is not an object.
    init?(_ value: JSONValue) {
        guard let object = value.objectValue else { return nil }
        formVersion = object["formVersion"]
        values = object["values"]
        switch object["components"] {
        case .array(let elements)?:
            components = .items(elements.map { element in
                guard let o = element.objectValue else { return Item(id: nil, content: nil, isObject: false) }
                return Item(id: o["id"], content: o["content"], isObject: true)
            })
        case let other?:
            components = .other(other)
        case nil:
            components = nil
        }
    }
}

extension JSONParser {
    /// Reads a submission body; nil when the top level is not an object (the caller then reports
    /// either the syntax error or the wrong shape).
    mutating func readSubmissionBody() throws(JSONParseError) -> SubmissionBody? {
        skipWhitespace()
        guard current == UInt8(ascii: "{") else { return nil }
        var body = SubmissionBody()
        var seen: [String] = []
        try enter()
        try expect(UInt8(ascii: "{"), "expected '{'")
        if consume(UInt8(ascii: "}")) {
            leave()
            try finish()
            return body
        }
        repeat {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let keyOffset = offset
            let key = try parseString()
            if seen.contains(key) { throw error("duplicate key \"\(key)\"", at: keyOffset) }
            seen.append(key)
            try expect(UInt8(ascii: ":"), "expected ':'")
            skipWhitespace()
            switch key {
            case "components":
                body.components = current == UInt8(ascii: "[") ? .items(try readItems()) : .other(try parseValue())
            case "values": body.values = try parseValue()
            case "formVersion": body.formVersion = try parseValue()
            default: try skipValue()
            }
        } while consume(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"), "expected ',' or '}'")
        leave()
        try finish()
        return body
    }

    private mutating func readItems() throws(JSONParseError) -> [SubmissionBody.Item] {
        try enter()
        try expect(UInt8(ascii: "["), "expected '['")
        var items: [SubmissionBody.Item] = []
        if consume(UInt8(ascii: "]")) {
            leave()
            return items
        }
        repeat {
            skipWhitespace()
            if current == UInt8(ascii: "{") {
                items.append(try readItem())
            } else {
                _ = try parseValue()
                items.append(SubmissionBody.Item(id: nil, content: nil, isObject: false))
            }
        } while consume(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"), "expected ',' or ']'")
        leave()
        return items
    }

    private mutating func readItem() throws(JSONParseError) -> SubmissionBody.Item {
        try enter()
        try expect(UInt8(ascii: "{"), "expected '{'")
        var item = SubmissionBody.Item(id: nil, content: nil, isObject: true)
        if consume(UInt8(ascii: "}")) {
            leave()
            return item
        }
        let keys = beginKeys()
        var seen: Set<[UInt8]>?
        repeat {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
            // Keys are compared as bytes: a snapshot component has seven of them and only two matter.
            let keyOffset = offset
            let key = try scanString()
            let isID = scanned(key, equals: "id")
            let isContent = !isID && scanned(key, equals: "content")
            try recordKey(key, since: keys, seen: &seen, at: keyOffset)
            try expect(UInt8(ascii: ":"), "expected ':'")
            skipWhitespace()
            if isID {
                item.id = try parseValue()
            } else if isContent {
                item.content = try parseValue()
            } else {
                try skipValue()
            }
        } while consume(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"), "expected ',' or '}'")
        endKeys(keys)
        leave()
        return item
    }
}
