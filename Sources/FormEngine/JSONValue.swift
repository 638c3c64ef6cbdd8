/// A JSON value: what the engine reads (definitions, submissions) and returns (validated values).
///
/// Objects keep their members in order, so a definition comes back in the order its author wrote
/// it. Literals build values directly: `let values: JSONValue = ["name": "Ada", "age": 36]`.
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number; JSON has one kind, held as a `Double`.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, its members in order.
    case object(JSONObject)
}

extension JSONValue {
    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The object, when this is an object.
    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The array, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The number, when this is a number.
    public var numberValue: Double? {
        if case .number(let n) = self { return n }
        return nil
    }

    /// The boolean, when this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The member `key` of an object; nil for a missing key or a non-object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// The name of this value's JSON type, for messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral {
    /// A string: `"Ada"`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A number: `36`.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// A number: `12.5`.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A boolean: `true`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array: `["a", "b"]`.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object, its members in the order written: `["name": "Ada", "age": 36]`. A key written twice
    /// keeps its place and takes the last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
    /// `null`: `nil`.
    public init(nilLiteral: ()) { self = .null }
}
