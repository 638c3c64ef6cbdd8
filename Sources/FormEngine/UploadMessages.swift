/// The errors a server answers about a file while it is being uploaded, before a submission names
/// it: the engine's codes and built-in messages, in the language the request asks for, as a 422 of
/// the submission itself would be.
public struct UploadMessages: Sendable {
    private let texts: TextLanguages

    /// Messages for a request asking for `preferences`, about a form whose default language is
    /// `defaultLanguage` (the one used when the request asks for none the engine has).
    public init(preferences: LanguagePriorityList, defaultLanguage: String) {
        texts = TextLanguages(preferences: preferences, formLanguage: defaultLanguage, defaultLanguage: defaultLanguage)
    }

    /// The language the messages are written in (for `Content-Language`).
    public var language: String { texts.builtIn }

    /// A media type the input does not take (`fileType`), with the ones it does.
    public func typeNotAccepted(_ type: String, by rules: FileInputRules, field: String) -> FieldError {
        FieldError(field: field, code: .fileType, message: texts.write(.fileType(type, by: rules)))
    }

    /// Bytes whose signature contradicts the declared type (`fileType`); `found` is the type they
    /// are, when it is known.
    public func contentContradicts(declared: String, found: String?, field: String) -> FieldError {
        let message = found.map { texts(.fileTypeContent, ["found": $0, "declared": declared]) }
            ?? texts(.fileTypeUnknownContent, ["declared": declared])
        return FieldError(field: field, code: .fileType, message: message)
    }

    /// An upload another submission took meanwhile (`file`).
    public func bound(field: String) -> FieldError {
        FieldError(field: field, code: .file, message: texts(.fileBound))
    }
}
