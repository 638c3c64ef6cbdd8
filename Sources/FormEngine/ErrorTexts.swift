/// What an error says, as the walk names it. Its text is written in the language asked for only
/// after the walk (``ErrorTexts/write(_:)``), and only for a submission that fails: a run carries
/// no languages, so a valid submission pays nothing for the ones it could have been answered in.
enum ErrorMessage {
    /// A built-in message, with the values of its placeholders.
    case text(MessageKey, KeyValuePairs<String, String> = [:])
    /// A built-in message whose `{type}` is the name of a JSON type, in the message's language too.
    case naming(MessageKey, type: MessageKey)
    /// The input's own message for the error's code (its `messages`).
    case custom(LocalizedText)

    /// `key`, its `{type}` naming the JSON type of `value`.
    static func naming(_ key: MessageKey, typeOf value: JSONValue) -> ErrorMessage {
        .naming(key, type: MessageKey.jsonType(of: value))
    }
}

/// The languages of one validation's error messages, looked up once for a submission that fails:
/// the built-in messages in the one of ``BuiltInMessages`` the request asks for, a definition's own
/// `messages` in the form's.
struct ErrorTexts {
    /// The language of the built-in messages.
    let builtIn: String
    /// The language of the definition's own messages (``FormDefinition/language(for:)``).
    let form: String
    /// The form's `defaultLanguage`, which every text map of it holds.
    let defaultLanguage: String

    init(preferences: LanguagePriorityList, formLanguage: String, defaultLanguage: String) {
        builtIn = BuiltInMessages.language(for: preferences, fallback: defaultLanguage)
        form = formLanguage
        self.defaultLanguage = defaultLanguage
    }

    /// The text of `message`, placeholders filled.
    func write(_ message: ErrorMessage) -> String {
        switch message {
        case .text(let key, let values): BuiltInMessages.message(key, in: builtIn, values)
        case .naming(let key, let type): BuiltInMessages.message(key, in: builtIn, ["type": BuiltInMessages.message(type, in: builtIn)])
        case .custom(let text): text.text(in: form, default: defaultLanguage)
        }
    }
}
