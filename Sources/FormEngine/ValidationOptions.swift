/// How to validate.
public struct ValidationOptions: Sendable {
    /// Longest value, in characters, before any rule runs; longer is a `maxLength` error.
    public var maxValueLength: Int = 10_000
    /// The uploads the submission names, by id (``FormDefinition/fileIDs(in:)`` lists the ids to
    /// fetch); a file input's id missing here is refused with code `file`.
    public var files: [String: UploadedFile] = [:]

    /// Options with text values capped at `maxValueLength` characters (the server's default), and
    /// the facts of the uploads the submission names.
    public init(maxValueLength: Int = 10_000, files: [String: UploadedFile] = [:]) {
        self.maxValueLength = maxValueLength
        self.files = files
    }
}
