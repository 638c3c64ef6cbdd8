/// Counts kept by the group committer, for tests, benchmarks and diagnostics.
public struct CommitStatistics: Sendable, Equatable {
    /// Groups written (committed or failed).
    public var groups = 0
    /// Groups whose transaction failed; each of their waiters got ``StoreError/unavailable(_:)``.
    public var failedGroups = 0
    /// Items (submissions, or delivery attempts) in all groups.
    public var items = 0
    public var largestGroup = 0
    /// The sizes of the most recent groups (up to ``recentLimit``), oldest first.
    public var recentGroupSizes: [Int] = []

    public static let recentLimit = 4096

    public init() {}

    mutating func record(groupSize: Int, failed: Bool) {
        groups += 1
        items += groupSize
        if failed { failedGroups += 1 }
        largestGroup = max(largestGroup, groupSize)
        if recentGroupSizes.count == Self.recentLimit {
            recentGroupSizes.removeFirst(Self.recentLimit / 2)
        }
        recentGroupSizes.append(groupSize)
    }
}
