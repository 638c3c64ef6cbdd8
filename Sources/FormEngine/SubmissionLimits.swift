/// Limits applied while reading a submission body; the defaults are the server's.
public struct SubmissionLimits: Sendable {
    /// Deepest JSON nesting.
    public var maxDepth: Int = 32
    /// Most components in a snapshot. A Formworks client sends every component of the profile, and
    /// repeats may add 20,000 there (`maxCreatedEntries`), so the cap leaves room for every snapshot
    /// of a form the server serves; the body limit usually comes first.
    public var maxComponents: Int = 50_000
    /// Highest repeat index a snapshot id may name (`addresses[999].x`).
    public var maxIndex: Int = 999
    /// Most array entries snapshot ids may create in all, gaps before an index included: without it,
    /// ids such as `a[999].b[999].c[999]...` would build millions of empty entries from a small body.
    public var maxCreatedEntries: Int = 20_000

    /// The server's limits.
    public init() {}
}
