import FormEngine
import HTTPServer

extension Request {
    /// The languages a request asks for: `?lang=` (a BCP 47 tag, or `*`) when given, which overrides
    /// the `Accept-Language` header (every line of it); neither is no preference. A malformed `lang`
    /// is 400; a malformed header item is ignored, as browsers and proxies write them loosely.
    func languagePreferences() throws -> LanguagePriorityList {
        languagePreferences(parameter: try languageParameter())
    }

    /// The same, from a `?lang=` already read and checked.
    func languagePreferences(parameter: String?) -> LanguagePriorityList {
        if let parameter { return LanguagePriorityList([parameter]) }
        return headers.acceptedLanguages
    }

    /// `?lang=`, checked: a BCP 47 tag or `*`.
    func languageParameter() throws -> String? {
        guard let lang = try queryValue("lang") else { return nil }
        guard lang == "*" || LanguageTag.isWellFormed(lang) else {
            throw APIProblem(.invalidParameter, "'lang' must be a language tag like 'en', 'pt-BR' or 'es', or '*' for every language.")
        }
        return lang
    }
}

extension HTTPHeaders {
    /// The languages `Accept-Language` asks for (every line of it); no preference when it is absent.
    var acceptedLanguages: LanguagePriorityList {
        list("Accept-Language").map(LanguagePriorityList.init(acceptLanguage:)) ?? LanguagePriorityList()
    }
}
