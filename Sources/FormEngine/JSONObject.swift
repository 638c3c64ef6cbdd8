/// A JSON object that keeps its members in insertion order.
///
/// Members live in one array. Lookup is a linear scan, except in large parsed objects (more than
/// `indexThreshold` members), which carry a hash index so hostile bodies cannot make lookups
/// quadratic. Objects built by appending (validated values) stay index-free: they are small and
/// mostly serialized, not searched.
public struct JSONObject: Sendable, Equatable {
    /// One member: a key and its value.
    public struct Member: Sendable, Equatable {
        /// The member's name.
        public var key: String
        /// The member's value.
        public var value: JSONValue

        /// A member named `key` holding `value`.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members in order.
    public private(set) var members: [Member] = []
    private var index: [String: Int]?

    private static let indexThreshold = 32

    /// An empty object.
    public init() {}

    /// An empty object with room for `capacity` members.
    init(reservingCapacity capacity: Int) {
        members.reserveCapacity(capacity)
    }

    /// An object of `members`, whose keys the caller guarantees are unique.
    init(uniqueMembers members: [Member]) {
        self.members = members
        rebuildIndex()
    }

    /// The number of members.
    public var count: Int { members.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// The values in order.
    public var values: [JSONValue] { members.map(\.value) }

    /// The position of `key`, if present.
    public func position(of key: String) -> Int? {
        if let index { return index[key] }
        for i in members.indices where members[i].key == key { return i }
        return nil
    }

    /// The value of `key`, trying position `cursor` first: lookups in the order the members were
    /// written cost one comparison each. `cursor` moves past the member found.
    func value(of key: String, cursor: inout Int) -> JSONValue? {
        if cursor < members.count, members[cursor].key == key {
            cursor += 1
            return members[cursor - 1].value
        }
        guard let i = position(of: key) else { return nil }
        cursor = i + 1
        return members[i].value
    }

    /// Reads, replaces, appends (new key) or removes (nil) a member.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let i = position(of: key) else { return nil }
            return members[i].value
        }
        set {
            if let i = position(of: key) {
                if let newValue {
                    members[i].value = newValue
                } else {
                    members.remove(at: i)
                    rebuildIndex()
                }
            } else if let newValue {
                append(key, newValue)
            }
        }
    }

    /// Appends a member without checking for an existing key (callers guarantee uniqueness).
    mutating func append(_ key: String, _ value: JSONValue) {
        members.append(Member(key: key, value: value))
        if index != nil { index![key] = members.count - 1 }
    }

    /// Inserts a member at the front (used to put a generated `id` first).
    mutating func prepend(_ key: String, _ value: JSONValue) {
        members.insert(Member(key: key, value: value), at: 0)
        rebuildIndex()
    }

    private mutating func rebuildIndex() {
        guard members.count > Self.indexThreshold else {
            index = nil
            return
        }
        var built = [String: Int](minimumCapacity: members.count)
        for (i, member) in members.enumerated() { built[member.key] = i }
        index = built
    }

    /// Objects are equal when they hold the same members, regardless of order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for member in lhs.members {
            guard let other = rhs[member.key], other == member.value else { return false }
        }
        return true
    }
}
