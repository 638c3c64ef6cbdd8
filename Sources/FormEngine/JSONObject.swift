/// A JSON object that keeps its members in insertion order.
///
/// Lookup is a linear scan while the object is small (the common case for form values) and goes
/// through a hash index once it grows past `indexThreshold` members.
public struct JSONObject: Sendable, Equatable {
    /// The members in order.
    public private(set) var keys: [String] = []
    /// The values, parallel to `keys`.
    public private(set) var values: [JSONValue] = []
    private var index: [String: Int]?

    private static let indexThreshold = 12

    /// An empty object.
    public init() {}

    /// The number of members.
    public var count: Int { keys.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { keys.isEmpty }

    /// The members as (key, value) pairs in order.
    public var members: some Collection<(key: String, value: JSONValue)> {
        zip(keys, values).lazy.map { (key: $0, value: $1) }
    }

    /// The position of `key`, if present.
    public func position(of key: String) -> Int? {
        if let index { return index[key] }
        for i in keys.indices where keys[i] == key { return i }
        return nil
    }

    /// Reads, replaces, appends (new key) or removes (nil) a member.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let i = position(of: key) else { return nil }
            return values[i]
        }
        set {
            if let i = position(of: key) {
                if let newValue {
                    values[i] = newValue
                } else {
                    keys.remove(at: i)
                    values.remove(at: i)
                    rebuildIndex()
                }
            } else if let newValue {
                append(key, newValue)
            }
        }
    }

    /// Appends a member without checking for an existing key (callers guarantee uniqueness).
    mutating func append(_ key: String, _ value: JSONValue) {
        keys.append(key)
        values.append(value)
        if index != nil {
            index![key] = keys.count - 1
        } else if keys.count > Self.indexThreshold {
            rebuildIndex()
        }
    }

    /// Inserts a member at the front (used to put a generated `id` first).
    mutating func prepend(_ key: String, _ value: JSONValue) {
        keys.insert(key, at: 0)
        values.insert(value, at: 0)
        rebuildIndex()
    }

    private mutating func rebuildIndex() {
        guard keys.count > Self.indexThreshold else {
            index = nil
            return
        }
        var built = [String: Int](minimumCapacity: keys.count)
        for (i, key) in keys.enumerated() { built[key] = i }
        index = built
    }

    /// Objects are equal when they hold the same members, regardless of order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for i in lhs.keys.indices {
            guard let other = rhs[lhs.keys[i]], other == lhs.values[i] else { return false }
        }
        return true
    }
}
