/// How to validate.
public struct ValidationOptions: Sendable {
    /// Longest value, in characters, before any rule runs; longer is a `maxLength` error.
    public var maxValueLength: Int = 10_000
    /// The uploads the submission names, by id (``FormDefinition/fileIDs(in:)`` lists the ids to
    /// fetch); a file input's id missing here is refused with code `file`.
    public var files: [String: UploadedFile] = [:]
    /// Judges a draft, not a submission: what is not answered yet is no error (no `required`, and
    /// no `repeat` for too few items), while every answer given is judged in full.
    public var partial = false
    /// The languages the person asks for (their `Accept-Language`, or `?lang=`): error messages are
    /// written in the best of them that the built-in messages, or the definition's own `messages`,
    /// are given in; with none asked for, in the form's `defaultLanguage` (English when the built-in
    /// messages do not exist in it).
    public var languages = LanguagePriorityList()

    /// Options with text values capped at `maxValueLength` characters (the server's default), the
    /// facts of the uploads the submission names, whether unanswered inputs are left alone, and the
    /// languages to write error messages in.
    public init(maxValueLength: Int = 10_000, files: [String: UploadedFile] = [:], partial: Bool = false,
                languages: LanguagePriorityList = LanguagePriorityList()) {
        self.maxValueLength = maxValueLength
        self.files = files
        self.partial = partial
        self.languages = languages
    }
}
