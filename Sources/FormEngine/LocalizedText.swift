/// A text a person reads (`title`, `description`, `placeholder`, an option's `title`, a `messages`
/// value): one string for every language, or a map of BCP 47 tags to strings,
/// `{"en": "Name", "pt-BR": "Nome"}`, that holds the form's `defaultLanguage`.
public enum LocalizedText: Sendable, Equatable {
    /// The same text in every language.
    case plain(String)
    /// The text in each language, by tag, in the order the definition gives them.
    case translated([Translation])

    /// One language's text.
    public struct Translation: Sendable, Equatable {
        /// The language, a BCP 47 tag as the definition spells it.
        public var language: String
        /// The text in that language.
        public var text: String

        /// The text `text` in `language`.
        public init(language: String, text: String) {
            self.language = language
            self.text = text
        }
    }

    /// The text of a definition's JSON: a string, or an object whose members are all strings; nil
    /// for anything else. Tags are not checked here (the definition's decoding does that).
    public init?(json: JSONValue) {
        switch json {
        case .string(let s):
            self = .plain(s)
        case .object(let object) where !object.isEmpty:
            var translations: [Translation] = []
            translations.reserveCapacity(object.count)
            for member in object.members {
                guard case .string(let text) = member.value else { return nil }
                translations.append(Translation(language: member.key, text: text))
            }
            self = .translated(translations)
        default:
            return nil
        }
    }

    /// The text in `language`, or in `defaultLanguage` when it has none in that one (tags compared
    /// without letter case); a map without either gives its first text.
    public func text(in language: String, default defaultLanguage: String) -> String {
        switch self {
        case .plain(let s):
            return s
        case .translated(let translations):
            return (translations.first { LanguageTag.same($0.language, language) }
                ?? translations.first { LanguageTag.same($0.language, defaultLanguage) }
                ?? translations[0]).text
        }
    }

    /// The text as a definition writes it.
    public var json: JSONValue {
        switch self {
        case .plain(let s):
            return .string(s)
        case .translated(let translations):
            var object = JSONObject(reservingCapacity: translations.count)
            for translation in translations { object.append(translation.language, .string(translation.text)) }
            return .object(object)
        }
    }
}
