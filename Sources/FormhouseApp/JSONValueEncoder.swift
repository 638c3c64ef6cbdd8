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
    private enum Content {
        case empty
        case value(JSONValue)
        case object([(key: String, node: Node)])
        case array([Node])
    }

    private var content = Content.empty

    var built: JSONValue {
        switch content {
        case .empty: return .object(JSONObject())
        case .value(let value): return value
        case .array(let nodes): return .array(nodes.map(\.built))
        case .object(let members):
            var object = JSONObject()
            for member in members { object[member.key] = member.node.built }
            return .object(object)
        }
    }

    func set(_ value: JSONValue) { content = .value(value) }

    func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws {
        if let json = value as? JSONValue {
            set(json)
        } else {
            try value.encode(to: ValueEncoder(node: self, codingPath: codingPath))
        }
    }

    /// The member `key`'s node; a new member goes last. Turns this node into an object first, keeping
    /// the members another keyed container of the same value wrote.
    func member(_ key: String) -> Node {
        var members: [(key: String, node: Node)] = []
        if case .object(let existing) = content { members = existing }
        if let found = members.first(where: { $0.key == key }) {
            found.node.content = .empty
            return found.node
        }
        let node = Node()
        members.append((key, node))
        content = .object(members)
        return node
    }

    func becomeObject() {
        if case .object = content { return }
        content = .object([])
    }

    func becomeArray() {
        if case .array = content { return }
        content = .array([])
    }

    /// A new element at the end of this array.
    func element() -> Node {
        var nodes: [Node] = []
        if case .array(let existing) = content { nodes = existing }
        let node = Node()
        nodes.append(node)
        content = .array(nodes)
        return node
    }

    var elementCount: Int {
        if case .array(let nodes) = content { return nodes.count }
        return 0
    }
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
        node.becomeObject()
        return KeyedEncodingContainer(KeyedContainer(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
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
