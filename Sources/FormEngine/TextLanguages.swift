/// The languages of one answer's texts, looked up once: the engine's built-in messages in the one of
/// ``BuiltInMessages`` closest to what is asked, and a definition's own texts (titles, descriptions,
/// its `messages`) in the form's language, each falling back to the form's default.
struct TextLanguages {
    /// The language of the built-in messages.
    let builtIn: String
    /// The language of the definition's own texts.
    let form: String
    /// The form's `defaultLanguage`, which every text map of it holds.
    let defaultLanguage: String

    /// For a request asking for `preferences`, answered in the form's `formLanguage`
    /// (``FormDefinition/language(for:)``).
    init(preferences: LanguagePriorityList, formLanguage: String, defaultLanguage: String) {
        builtIn = BuiltInMessages.language(for: preferences, fallback: defaultLanguage)
        form = formLanguage
        self.defaultLanguage = defaultLanguage
    }

    /// For an answer in `language`, one of the form's.
    init(language: String, defaultLanguage: String) {
        self.init(preferences: LanguagePriorityList([language]), formLanguage: language, defaultLanguage: defaultLanguage)
    }

    /// The text of an error's `message`, placeholders filled.
    func write(_ message: ErrorMessage) -> String {
        switch message {
        case .text(let key, let values): self(key, values)
        case .naming(let key, let type): self(key, ["type": self(type)])
        case .custom(let text): text.text(in: form, default: defaultLanguage)
        }
    }

    /// The built-in text `key`, its placeholders filled from `values`.
    func callAsFunction(_ key: MessageKey, _ values: KeyValuePairs<String, String> = [:]) -> String {
        BuiltInMessages.message(key, in: builtIn, values)
    }

    /// One of the definition's texts in the form's language, or in the default one where a map has
    /// none in it; nil when the value is absent or not a text.
    func callAsFunction(_ value: JSONValue?) -> String? {
        value.flatMap(LocalizedText.init(json:))?.text(in: form, default: defaultLanguage)
    }
}
