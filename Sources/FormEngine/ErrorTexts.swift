/// The language of one validation's error messages: the built-in ones in the language of
/// ``BuiltInMessages`` the request asks for, a definition's own `messages` in the form's.
struct ErrorTexts: Sendable {
    /// The languages the request asks for (``ValidationOptions/languages``).
    let preferences: LanguagePriorityList
    /// The form's languages and default (``FormDefinition/languages``).
    let formLanguages: [String]
    let defaultLanguage: String

    /// The built-in message `key`, its placeholders filled from `values`.
    func callAsFunction(_ key: MessageKey, _ values: KeyValuePairs<String, String> = [:]) -> String {
        BuiltInMessages.message(key, in: BuiltInMessages.language(for: preferences, fallback: defaultLanguage), values)
    }

    /// The name of `value`'s JSON type, for a `{type}` placeholder.
    func typeName(_ value: JSONValue) -> String {
        self(MessageKey.jsonType(of: value))
    }

    /// One of the definition's own messages, in the language the form is answered in.
    func custom(_ text: LocalizedText) -> String {
        text.text(in: preferences.lookup(formLanguages) ?? defaultLanguage, default: defaultLanguage)
    }
}
