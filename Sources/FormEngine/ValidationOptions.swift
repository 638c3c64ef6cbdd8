/// How to validate.
public struct ValidationOptions: Sendable {
    /// Longest value, in characters, before any rule runs; longer is a `maxLength` error.
    public var maxValueLength: Int = 10_000

    /// Options with text values capped at `maxValueLength` characters (the server's default).
    public init(maxValueLength: Int = 10_000) {
        self.maxValueLength = maxValueLength
    }
}
