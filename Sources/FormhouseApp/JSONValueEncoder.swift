import FormEngine

/// Encodes `Encodable` values into the engine's `JSONValue`, so that answers are written by the one
/// JSON writer the project has (`JSONValue.serialized()`).
///
/// Objects keep their members in the order `encode(to:)` writes them (declaration order for a
/// synthesized conformance); a key written again keeps its place and takes the last value. `nil`
/// optionals are left out, as `encodeIfPresent` does; `encodeNil` writes `null`. A `JSONValue` is
/// taken as it is. Integers become numbers (a `Double`, as every `JSONValue` number is).
struct JSONValueEncoder {
    /// `value` as a `JSONValue`; an object when `value` writes nothing at all.
    func encode(_ value: some Encodable) throws -> JSONValue {
        let node = Node()
        try node.encode(value, codingPath: [])
        return node.built
    }

    /// `answer` as compact JSON text. Answer types hold strings, numbers, booleans and `JSONValue`s,
    /// whose encoding cannot fail; a failure is a mistake in an answer type's `encode(to:)`.
    static func serialize(_ answer: some Encodable) -> [UInt8] {
        do {
            return try JSONValueEncoder().encode(answer).serialized()
        } catch {
            preconditionFailure("An answer failed to encode: \(error)")
        }
    }
}

/// One value under construction. A reference, because containers are handed out as values that keep
/// writing into it after they are returned.
private final class Node {
    enum Kind {
        case empty, value, object, array
    }

    private var kind = Kind.empty
    private var value = JSONValue.null
    /// In the order written. Answers' objects are small, so a key written again is found by a scan.
    private var members: [(key: String, node: Node)] = []
    private var elements: [Node] = []

    var built: JSONValue {
        switch kind {
        case .empty: return .object(JSONObject())
        case .value: return value
        case .array: return .array(elements.map(\.built))
        case .object:
            var object = JSONObject()
            for member in members { object[member.key] = member.node.built }
            return .object(object)
        }
    }

    func set(_ value: JSONValue) {
        become(.value)
        self.value = value
    }

    func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws {
        if let json = value as? JSONValue {
            set(json)
        } else {
            try value.encode(to: ValueEncoder(node: self, codingPath: codingPath))
        }
    }

    /// Makes this node a value of `kind`, keeping what it holds when it is one already: the members
    /// that another keyed container of the same value wrote, say.
    func become(_ kind: Kind) {
        guard self.kind != kind else { return }
        self.kind = kind
        members = []
        elements = []
    }

    /// The member `key`'s node, emptied when the key was written before; a new member goes last.
    func member(_ key: String) -> Node {
        become(.object)
        if let found = members.first(where: { $0.key == key }) {
            found.node.become(.empty)
            return found.node
        }
        let node = Node()
        members.append((key, node))
        return node
    }

    /// A new element at the end of this array.
    func element() -> Node {
        become(.array)
        let node = Node()
        elements.append(node)
        return node
    }

    var elementCount: Int { elements.count }
}

/// The position of an element in an array, for coding paths.
private struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { String(intValue ?? 0) }
    init(_ index: Int) { intValue = index }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

private struct ValueEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.become(.object)
        return KeyedEncodingContainer(KeyedContainer(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.become(.array)
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(node: node, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).set(.null) }

    /// Also the witness of every primitive `encode`: the value's own conformance hands it to the
    /// single-value container.
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try node.member(key.stringValue).encode(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        ValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        ValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        ValueEncoder(node: node.member("super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int { node.elementCount }

    private func next() -> (Node, [any CodingKey]) {
        let path = codingPath + [IndexKey(count)]
        return (node.element(), path)
    }

    mutating func encodeNil() throws { node.element().set(.null) }

    /// Also the witness of every primitive `encode`, as in the keyed container.
    mutating func encode<T: Encodable>(_ value: T) throws {
        let (element, path) = next()
        try element.encode(value, codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let (element, path) = next()
        return ValueEncoder(node: element, codingPath: path).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let (element, path) = next()
        return ValueEncoder(node: element, codingPath: path).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let (element, path) = next()
        return ValueEncoder(node: element, codingPath: path)
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.set(.null) }
    mutating func encode(_ value: Bool) throws { node.set(.bool(value)) }
    mutating func encode(_ value: String) throws { node.set(.string(value)) }
    mutating func encode(_ value: Double) throws { node.set(.number(value)) }
    mutating func encode(_ value: Float) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: Int) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: Int8) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: Int16) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: Int32) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: Int64) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: UInt) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: UInt8) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: UInt16) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: UInt32) throws { node.set(.number(Double(value))) }
    mutating func encode(_ value: UInt64) throws { node.set(.number(Double(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try node.encode(value, codingPath: codingPath)
    }
}
