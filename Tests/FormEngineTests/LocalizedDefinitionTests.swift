import Foundation
import Testing
@testable import FormEngine

@Suite struct LocalizedDefinitionTests {
    static let form = #"""
    {"id": "signup", "title": {"en": "Sign up", "pt-BR": "Cadastro", "es": "Registro"},
     "description": {"en": "Tell us", "pt-BR": "Conte para nós"},
     "components": [
      {"text": {"id": "name", "title": {"en": "Name", "pt-BR": "Nome", "es": "Nombre"}, "required": true,
                "placeholder": {"en": "Your name", "es": "Su nombre"},
                "messages": {"required": {"en": "We need your name.", "pt-BR": "Precisamos do seu nome."}}}},
      {"select": {"id": "color", "title": "Color", "options": [{"id": "red", "title": {"en": "Red", "pt-BR": "Vermelho"}}]}},
      {"group": {"id": "kids", "title": {"en": "Kid", "pt-BR": "Filho"}, "repeat": {"min": 1, "max": 3}, "components": [
        {"integer": {"id": "age", "title": {"en": "Age", "pt-BR": "Idade"}, "minValue": 0}}
      ]}}
    ]}
    """#

    @Test func languagesAndDefault() throws {
        let definition = try Fixtures.definition(Self.form)
        #expect(definition.defaultLanguage == "en")
        #expect(definition.languages == ["en", "pt-BR", "es"])
        #expect(definition.isTranslated)
        #expect(definition.title == "Sign up")
        #expect(definition.inputPaths == ["name", "color", "kids[].age"])
        let plain = try Fixtures.single("text")
        #expect(plain.languages == ["en"])
        #expect(!plain.isTranslated)
        #expect(plain.normalizedJSON(language: "pt-BR") == plain.normalizedJSON())
    }

    /// A server builds and keeps a body per language: a form may not ask for thousands.
    @Test func atMost32Languages() throws {
        // Private-use language subtags qaa...qbf, all well formed.
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        let tags = (0..<32).map { "q\(letters[$0 / 26])\(letters[$0 % 26])" }
        func form(_ count: Int) -> String {
            let texts = tags.prefix(count).map { #""\#($0)": "T""# }.joined(separator: ", ")
            return #"{"title": {"en": "T", \#(texts)}, "components": [{"text": {"id": "a", "title": {"en": "A", "qaa": "A"}}}]}"#
        }
        #expect(try Fixtures.definition(form(31)).languages.count == 32)
        #expect(Fixtures.problems(form(32)).map { "\($0.pointer) \($0.code.rawValue)" } == ["/title/qbf tooLarge"])
    }

    @Test func oneLanguageReplacesEveryMap() throws {
        let definition = try Fixtures.definition(Self.form)
        let pt = definition.normalizedJSON(language: "pt-BR")
        #expect(pt["title"] == "Cadastro")
        #expect(pt["description"] == "Conte para nós")
        let name = pt["components"]?.arrayValue?[0]["text"]
        #expect(name?["title"] == "Nome")
        // A map without the language falls back to the default language.
        #expect(name?["placeholder"] == "Your name")
        #expect(name?["messages"]?["required"] == "Precisamos do seu nome.")
        #expect(pt["components"]?.arrayValue?[1]["select"]?["options"]?.arrayValue?[0]["title"] == "Vermelho")
        let kids = pt["components"]?.arrayValue?[2]["group"]
        #expect(kids?["title"] == "Filho")
        #expect(kids?["components"]?.arrayValue?[0]["integer"]?["title"] == "Idade")
        let es = definition.normalizedJSON(language: "es")
        #expect(es["description"] == "Tell us")
        #expect(es["components"]?.arrayValue?[0]["text"]?["placeholder"] == "Su nombre")
        // Nothing else changes: the same definition without its maps.
        #expect(definition.normalizedJSON(language: "en").serialized().count < definition.normalizedJSON().serialized().count)
        #expect(try FormDefinition(json: es).languages == ["en"])
    }

    @Test func negotiatedAmongTheFormsLanguages() throws {
        let definition = try Fixtures.definition(Self.form)
        #expect(definition.language(for: LanguagePriorityList(acceptLanguage: "es-MX")) == "es")
        #expect(definition.language(for: LanguagePriorityList(acceptLanguage: "pt-br")) == "pt-BR")
        #expect(definition.language(for: LanguagePriorityList(acceptLanguage: "fr")) == "en")
        #expect(definition.language(for: LanguagePriorityList()) == "en")
    }

    @Test func defaultLanguageMustBeInEveryMap() throws {
        let problems = Fixtures.problems(#"""
        {"defaultLanguage": "pt-BR", "title": {"en": "Sign up"}, "components": [
          {"text": {"id": "a", "title": {"pt-BR": "A", "pt-br": "B", "en_US": "C", "es": 3}}},
          {"text": {"id": "b", "title": {}, "description": 5, "messages": {"required": {"en": "x"}}}},
          {"select": {"id": "c", "options": [{"id": "x", "title": {"es": "Equis"}}]}}
        ]}
        """#)
        let found = problems.map { "\($0.pointer) \($0.code)" }
        #expect(found == [
            "/title missing",
            "/components/0/text/title/pt-br badValue",
            "/components/0/text/title/en_US badValue",
            "/components/0/text/title/es invalidType",
            "/components/1/text/title badValue",
            "/components/1/text/description invalidType",
            "/components/1/text/messages/required missing",
            "/components/2/select/options/0/title missing",
        ])
        #expect(problems[0].message.contains("\"pt-BR\""))
        let badDefault = Fixtures.problems(#"{"defaultLanguage": "portuguese!", "title": "T", "components": []}"#)
        #expect(badDefault.map(\.pointer) == ["/defaultLanguage"])
    }

    @Test func aDefaultLanguageOtherThanEnglish() throws {
        let definition = try Fixtures.definition(#"""
        {"defaultLanguage": "pt-BR", "title": {"pt-BR": "Cadastro", "en": "Sign up"}, "components": [
          {"text": {"id": "name", "title": "Nome", "required": true}}
        ]}
        """#)
        #expect(definition.title == "Cadastro")
        #expect(definition.languages == ["pt-BR", "en"])
        #expect(definition.language(for: LanguagePriorityList(acceptLanguage: "fr")) == "pt-BR")
        // With no language asked for, the built-in messages follow the form's default language.
        let result = definition.validate(try Fixtures.submission(#"{"values": {}}"#))
        #expect(result.errors.map(\.message) == ["Este campo é obrigatório."])
        let english = definition.validate(try Fixtures.submission(#"{"values": {}}"#),
                                          options: ValidationOptions(languages: LanguagePriorityList(acceptLanguage: "en-GB")))
        #expect(english.errors.map(\.message) == ["This field is required."])
    }

    @Test func generatedIDsComeFromTheDefaultLanguage() throws {
        let definition = try Fixtures.definition(#"""
        {"title": "T", "components": [{"text": {"title": {"en": "Full name", "pt-BR": "Nome completo"}}}]}
        """#)
        #expect(definition.inputPaths == ["text-full-name"])
    }

    /// The formworks profile of a localized form: plain strings in one language, as Formworks' own
    /// `Decodable` models require (`title`, `description` and `placeholder` are `String`).
    @Test func formworksProfileHasPlainStrings() throws {
        let definition = try Fixtures.definition(Self.form)
        for language in [nil, "pt-BR", "es"] as [String?] {
            let bytes = Data(definition.formworksProfile(language: language).serialized())
            let form = try JSONDecoder().decode(FormworksForm.self, from: bytes)
            let expected = ["pt-BR": ("Cadastro", "Nome", "Filho 1: Idade"), "es": ("Registro", "Nombre", "Kid 1: Age")][language ?? ""]
                ?? ("Sign up", "Name", "Kid 1: Age")
            #expect(form.title == expected.0)
            #expect(form.components.first?.values.first?.title == expected.1)
            #expect(form.components.last?.values.first?.title == expected.2)
            // The profile's own hints are written in the same language.
            #expect(form.components.last?.values.first?.description
                == ["pt-BR": "Um número inteiro.", "es": "Un número entero."][language ?? ""] ?? "A whole number.")
        }
        let spanish = try JSONDecoder().decode(FormworksForm.self, from: Data(definition.formworksProfile(language: "es").serialized()))
        #expect(spanish.components.first?.values.first?.placeholder == "Su nombre")
    }

    /// The parts of Formworks' form model that its decoder requires.
    struct FormworksForm: Decodable {
        var id: String
        var title: String
        var description: String?
        var responseFormat: String
        var components: [[String: Component]]

        struct Component: Decodable {
            var id: String
            var title: String
            var description: String
            var required: Bool
            var placeholder: String?
            var regex: String?
        }
    }
}
