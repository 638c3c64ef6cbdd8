/// A form version: the cache's key.
struct VersionKey: Hashable { var id: String; var version: Int }

/// The least recently used entry goes once more than `capacity` are kept.
struct VersionCache {
    let capacity: Int
    private var entries: [VersionKey: (form: PublishedForm, lastUse: Int)] = [:]
    private var clock = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { entries.count }

    mutating func get(_ key: VersionKey) -> PublishedForm? {
        guard let form = entries[key]?.form else { return nil }
        clock += 1
        entries[key]?.lastUse = clock
        return form
    }

    mutating func put(_ key: VersionKey, _ form: PublishedForm) {
        clock += 1
        entries[key] = (form, clock)
        if entries.count > capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            entries.removeValue(forKey: oldest)
        }
    }
}
