/// The errors a server answers about a file while it is being uploaded, before a submission names
/// it: the engine's codes and built-in messages, in the language the request asks for, as a 422 of
/// the submission itself would be.
public struct UploadMessages: Sendable {
    /// The language the messages are written in (for `Content-Language`).
    public let language: String

    /// Messages for a request asking for `preferences`, about a form whose default language is
    /// `defaultLanguage` (the one used when the request asks for none the engine has).
    public init(preferences: LanguagePriorityList, defaultLanguage: String) {
        language = BuiltInMessages.language(for: preferences, fallback: defaultLanguage)
    }

    /// A media type the input does not take (`fileType`), with the ones it does.
    public func typeNotAccepted(_ type: String, by rules: FileInputRules, field: String) -> FieldError {
        FieldError(field: field, code: .fileType, message: BuiltInMessages.message(
            .fileType, in: language, ["type": type, "accepted": rules.accept?.joined(separator: ", ") ?? ""]))
    }

    /// Bytes whose signature contradicts the declared type (`fileType`); `found` is the type they
    /// are, when it is known.
    public func contentContradicts(declared: String, found: String?, field: String) -> FieldError {
        let message = found.map { BuiltInMessages.message(.fileTypeContent, in: language, ["found": $0, "declared": declared]) }
            ?? BuiltInMessages.message(.fileTypeUnknownContent, in: language, ["declared": declared])
        return FieldError(field: field, code: .fileType, message: message)
    }

    /// An upload another submission took meanwhile (`file`).
    public func bound(field: String) -> FieldError {
        FieldError(field: field, code: .file, message: BuiltInMessages.message(.fileBound, in: language))
    }
}
