import Foundation
import Testing
@testable import FormEngine

@Suite struct BuiltInMessagesTests {
    /// The `{name}` placeholders of a message.
    static func placeholders(_ text: String) -> Set<String> {
        var names = Set<String>()
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.insert(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    @Test func everyKeyHasAMessageInEveryLanguageWithTheSamePlaceholders() {
        let english = BuiltInMessages.texts(of: "en")
        #expect(Set(english.keys) == Set(MessageKey.allCases.map(\.rawValue)))
        for language in BuiltInMessages.languages {
            let texts = BuiltInMessages.texts(of: language)
            #expect(Set(texts.keys) == Set(english.keys), "\(language)")
            for (key, text) in english {
                #expect(Self.placeholders(texts[key] ?? "") == Self.placeholders(text), "\(language) \(key)")
                #expect(!(texts[key] ?? "").isEmpty, "\(language) \(key)")
            }
        }
        // Each file is its own translation, not a copy of English.
        #expect(BuiltInMessages.texts(of: "pt-BR")["required"] == "Este campo é obrigatório.")
        #expect(BuiltInMessages.texts(of: "es")["required"] == "Este campo es obligatorio.")
    }

    /// The files are the source: every message file in `Sources/FormEngine/Messages` is one the
    /// library ships, so a translator's new file is not silently left out.
    @Test func everyFileInTheFolderIsShipped() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/FormEngine/Messages")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(Set(files) == Set(BuiltInMessages.languages.map { $0 + ".json" }))
    }

    @Test func languageOfTheMessages() {
        #expect(BuiltInMessages.language(for: LanguagePriorityList(acceptLanguage: "pt-PT"), fallback: "en") == "pt")
        #expect(BuiltInMessages.texts(of: "pt")["required"] == BuiltInMessages.texts(of: "pt-BR")["required"])
        #expect(BuiltInMessages.language(for: LanguagePriorityList(acceptLanguage: "es-MX"), fallback: "en") == "es")
        #expect(BuiltInMessages.language(for: LanguagePriorityList(acceptLanguage: "fr"), fallback: "de") == "en")
        #expect(BuiltInMessages.language(for: LanguagePriorityList(acceptLanguage: "fr"), fallback: "es-AR") == "es")
    }

    static let form = #"""
    {"title": "T", "components": [
      {"text": {"id": "name", "required": true}},
      {"text": {"id": "nick", "required": true, "messages": {"required": {"en": "A nickname, please.", "es": "Un apodo, por favor."}}}},
      {"integer": {"id": "age", "maxValue": 120}},
      {"text": {"id": "code", "minLength": 3}},
      {"date": {"id": "day", "minDate": "2024-01-01"}},
      {"group": {"id": "kids", "repeat": {"min": 1, "max": 2}, "components": [{"text": {"id": "n"}}]}}
    ]}
    """#

    static let body = #"{"values": {"age": 130, "code": "ab", "day": "2023-05-01", "kids": [], "extra": 1}}"#

    func messages(_ acceptLanguage: String?) throws -> [String] {
        let definition = try Fixtures.definition(Self.form)
        let languages = acceptLanguage.map(LanguagePriorityList.init(acceptLanguage:)) ?? LanguagePriorityList()
        return definition.validate(try Fixtures.submission(Self.body), options: ValidationOptions(languages: languages)).errors.map(\.message)
    }

    @Test func englishStaysAsItWas() throws {
        let english = [
            "This field is required.", "A nickname, please.", "The value must be at most 120.", "Use at least 3 characters.",
            "The date must be on or after 2024-01-01.", "Add between 1 and 2 items.", "This form has no field \"extra\".",
        ]
        #expect(try messages(nil) == english)
        #expect(try messages("fr") == english)
    }

    @Test func portuguese() throws {
        #expect(try messages("pt-BR") == [
            "Este campo é obrigatório.", "A nickname, please.", "O valor deve ser no máximo 120.", "Use pelo menos 3 caracteres.",
            "A data deve ser igual ou posterior a 2024-01-01.", "Adicione entre 1 e 2 itens.", "Este formulário não tem o campo \"extra\".",
        ])
    }

    @Test func spanishFromALatinAmericanBrowser() throws {
        #expect(try messages("es-MX,es;q=0.9,en;q=0.8") == [
            "Este campo es obligatorio.", "Un apodo, por favor.", "El valor debe ser como máximo 120.", "Usa al menos 3 caracteres.",
            "La fecha debe ser el 2024-01-01 o posterior.", "Agrega entre 1 y 2 elementos.", "Este formulario no tiene el campo \"extra\".",
        ])
    }

    /// A count of one is said in words of its own, not as "1 items".
    @Test func aRepeatOfExactlyOneItem() throws {
        let definition = try Fixtures.definition(#"{"title": "T", "components": [{"group": {"id": "g", "repeat": {"min": 1, "max": 1}, "components": [{"text": {"id": "a"}}]}}]}"#)
        let messages = { (language: String) in
            definition.validate(try Fixtures.submission(#"{"values": {"g": []}}"#),
                                options: ValidationOptions(languages: LanguagePriorityList([language]))).errors.map(\.message)
        }
        #expect(try messages("en") == ["Add exactly one item."])
        #expect(try messages("pt-BR") == ["Adicione exatamente um item."])
        #expect(try messages("es") == ["Agrega exactamente un elemento."])
        let two = try Fixtures.definition(#"{"title": "T", "components": [{"group": {"id": "g", "repeat": {"min": 2, "max": 2}, "components": [{"text": {"id": "a"}}]}}]}"#)
        #expect(two.validate(try Fixtures.submission(#"{"values": {"g": []}}"#)).errors.map(\.message) == ["Add exactly 2 items."])
    }

    /// The languages a result's messages are in, for `Content-Language`: each once, however spelled.
    @Test func messageLanguages() throws {
        let asked = ValidationOptions(languages: LanguagePriorityList(["pt-BR"]))
        let spelledLow = try Fixtures.definition(#"{"title": {"en": "T", "pt-br": "T"}, "components": [{"text": {"id": "a", "required": true}}]}"#)
        #expect(spelledLow.validate(try Fixtures.submission(#"{"values": {}}"#), options: asked).messageLanguages == ["pt-BR"])
        let english = try Fixtures.single("text", #""required": true"#)
        #expect(english.validate(try Fixtures.submission(#"{"values": {}}"#), options: asked).messageLanguages == ["pt-BR", "en"])
        #expect(english.validate(try Fixtures.submission(#"{"values": {"f": "x"}}"#), options: asked).messageLanguages.isEmpty)
    }

    @Test func placeholdersAreFilledOnce() {
        #expect(BuiltInMessages.message(.fileType, in: "en", ["type": "a/{accepted}", "accepted": "image/*"])
            == "This kind of file (a/{accepted}) is not accepted here; attach one of image/*.")
        #expect(BuiltInMessages.message(.maxFiles, in: "es", ["max": "3"]) == "Adjunta como máximo 3 archivos.")
    }

    @Test func typeNamesAreTranslated() throws {
        let definition = try Fixtures.single("text")
        let result = definition.validate(try Fixtures.submission(#"{"values": {"f": [1]}}"#),
                                         options: ValidationOptions(languages: LanguagePriorityList(["pt-BR"])))
        #expect(result.errors.map(\.message) == ["Era esperado um texto, mas o valor recebido é do tipo lista."])
        let english = definition.validate(try Fixtures.submission(#"{"values": {"f": [1]}}"#))
        #expect(english.errors.map(\.message) == ["Expected text, got array."])
    }
}
