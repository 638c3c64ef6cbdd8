/// What an error says, as the walk names it. Its text is written in the language asked for only
/// after the walk (``TextLanguages/write(_:)``), and only for a submission that fails: a run carries
/// no languages, so a valid submission pays nothing for the ones it could have been answered in.
enum ErrorMessage {
    /// A built-in message, with the values of its placeholders.
    case text(MessageKey, KeyValuePairs<String, String> = [:])
    /// A built-in message whose `{type}` is the name of a JSON type, in the message's language too.
    case naming(MessageKey, type: MessageKey)
    /// The input's own message for the error's code (its `messages`).
    case custom(LocalizedText)

    /// A file of media type `type`, which `rules` do not accept (`fileType`).
    static func fileType(_ type: String, by rules: FileInputRules) -> ErrorMessage {
        .text(.fileType, ["type": type, "accepted": rules.accept?.joined(separator: ", ") ?? ""])
    }

    /// `key`, its `{type}` naming the JSON type of `value`.
    static func naming(_ key: MessageKey, typeOf value: JSONValue) -> ErrorMessage {
        .naming(key, type: MessageKey.jsonType(of: value))
    }
}
