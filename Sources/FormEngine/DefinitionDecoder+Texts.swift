extension DefinitionDecoder {
    /// The most languages a form's texts may hold, the default included.
    static let maximumLanguages = 32

    /// `defaultLanguage`: the language of the form's plain texts and the one every text map must
    /// hold; `en` when absent.
    mutating func decodeDefaultLanguage(_ value: JSONValue?) {
        guard let value else { return }
        guard let tag = value.stringValue, LanguageTag.isWellFormed(tag) else {
            problem("/defaultLanguage", .badValue, "\"defaultLanguage\" must be a BCP 47 language tag, like \"en\", \"pt-BR\" or \"es\".")
            return
        }
        defaultLanguage = tag
    }

    /// Checks the texts a person reads among `props`: each a string, or a map of language tags to
    /// strings holding the default language. `reporting` false only notes their languages (a key
    /// that was not checked when definitions were first stored).
    mutating func checkTexts(_ props: JSONObject, _ keys: [String], at pointer: String, reporting: Bool = true) {
        for key in keys {
            if let value = props[key] { _ = text(value, named: key, at: pointer + "/" + Self.escape(key), reporting: reporting) }
        }
    }

    /// Checks `title` among `props` as ``checkTexts(_:_:at:reporting:)`` does, and returns its text in
    /// the default language, for the uses that need one (generated ids, the size of the formworks
    /// profile); "" when absent or not a text.
    mutating func checkedTitle(_ props: JSONObject, at pointer: String) -> String {
        guard let value = props["title"] else { return "" }
        return text(value, named: "title", at: pointer + "/title")?.text(in: defaultLanguage, default: defaultLanguage) ?? ""
    }

    /// Reads one text, reporting what is wrong with it at `pointer`.
    mutating func text(_ value: JSONValue, named name: String, at pointer: String, reporting: Bool = true) -> LocalizedText? {
        guard let object = value.objectValue else {
            if let s = value.stringValue { return .plain(s) }
            if reporting {
                problem(pointer, .invalidType, "\"\(name)\" must be a string, not \(value.typeName).")
            }
            return nil
        }
        var valid = !object.isEmpty
        var hasDefault = false
        var seen = Set<String>()
        for member in object.members {
            let memberPointer = pointer + "/" + Self.escape(member.key)
            if !LanguageTag.isWellFormed(member.key) {
                valid = false
                if reporting { problem(memberPointer, .badValue, "\"\(member.key)\" is not a BCP 47 language tag; write one like \"en\", \"pt-BR\" or \"es-419\".") }
                continue
            }
            let folded = member.key.lowercased()
            if !seen.insert(folded).inserted {
                valid = false
                if reporting { problem(memberPointer, .badValue, "\"\(member.key)\" names a language already given (tags do not depend on letter case).") }
            }
            if member.value.stringValue == nil {
                valid = false
                if reporting { problem(memberPointer, .invalidType, "The text in \"\(member.key)\" must be a string, not \(member.value.typeName).") }
            }
            if LanguageTag.same(member.key, defaultLanguage) { hasDefault = true }
            if languageKeys.insert(folded).inserted {
                languages.append(member.key)
                // Each language is a body a server builds and keeps on first request.
                if languages.count == Self.maximumLanguages + 1, reporting {
                    problem(memberPointer, .tooLarge, "A form may have at most \(Self.maximumLanguages) languages; \"\(member.key)\" is one more.")
                }
            }
        }
        if object.isEmpty, reporting {
            problem(pointer, .badValue, "\"\(name)\" holds no language; give its text as a string or as {\"\(defaultLanguage)\": \"...\"}.")
        } else if !hasDefault, valid, reporting {
            problem(pointer, .missing,
                    "\"\(name)\" has no text in the form's default language \"\(defaultLanguage)\"; add it, or set \"defaultLanguage\" to one it has.")
        }
        guard valid, hasDefault else { return nil }
        return LocalizedText(json: value)
    }
}
