import Foundation
import Testing
@testable import FormhouseApp

/// Languages over real sockets: a form's texts and the error messages follow `Accept-Language` and
/// `?lang=`, with `Content-Language`, `Vary` and an ETag per language.
@Suite struct LanguagesAPITests {
    static let form = #"""
    {"id": "cadastro", "title": {"en": "Sign up", "pt-BR": "Cadastro", "es": "Registro"},
     "components": [
       {"text": {"id": "name", "title": {"en": "Name", "pt-BR": "Nome", "es": "Nombre"}, "required": true}},
       {"email": {"id": "mail", "title": "E-mail", "required": true,
                  "messages": {"email": {"en": "That is no address.", "pt-BR": "Isso não é um endereço."}}}},
       {"integer": {"id": "age", "title": {"en": "Age", "pt-BR": "Idade", "es": "Edad"}, "minValue": 18}}
     ]}
    """#

    static let invalid = #"{"values": {"mail": "nope", "age": 7}}"#

    static func server() async throws -> InProcessServer {
        let server = try await InProcessServer()
        let saved = try await server.client.admin("PUT", "/v1/admin/forms/cadastro", json: form)
        #expect(saved.status == 201, "\(saved.text)")
        return server
    }

    static func messages(_ reply: TestResponse) -> [String] {
        (reply.object["errors"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
    }

    @Test func aRefusedSubmissionSpeaksTheRequestsLanguage() async throws {
        let server = try await Self.server()
        let client = server.client
        let expected: [String: [String]] = [
            "pt-BR": ["Este campo é obrigatório.", "Isso não é um endereço.", "O valor deve ser no mínimo 18."],
            "es-MX": ["Este campo es obligatorio.", "That is no address.", "El valor debe ser como mínimo 18."],
            "fr": ["This field is required.", "That is no address.", "The value must be at least 18."],
        ]
        let answered = ["pt-BR": "pt-BR", "es-MX": "es", "fr": "en"]
        for (language, messages) in expected {
            let refused = try await client.postJSON("/v1/forms/cadastro/submissions", Self.invalid, headers: [("Accept-Language", language)])
            #expect(refused.status == 422)
            #expect(Self.messages(refused) == messages, "\(language)")
            let judged = try await client.postJSON("/v1/forms/cadastro/validate", Self.invalid, headers: [("Accept-Language", language)])
            #expect(Self.messages(judged) == messages, "\(language)")
            // Both say which language their messages are in, and that another would get other ones.
            for reply in [refused, judged] {
                #expect(reply.header("Content-Language") == answered[language], "\(language)")
                #expect(reply.header("Vary")?.contains("Accept-Language") == true, "\(language)")
            }
        }
        // A valid answer has no messages, so no language, but still depends on the header.
        let valid = try await client.postJSON("/v1/forms/cadastro/validate", #"{"values": {"name": "Ana", "mail": "a@b.co"}}"#,
                                              headers: [("Accept-Language", "pt-BR")])
        #expect(valid.object["valid"] as? Bool == true && valid.header("Content-Language") == nil)
        #expect(valid.header("Vary")?.contains("Accept-Language") == true)
        // A form in English only, asked in Portuguese: built-in messages in Portuguese, the form's own
        // (were there any) in English; both are named.
        _ = try await client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup)
        let mixed = try await client.postJSON("/v1/forms/signup/validate", #"{"values": {}}"#, headers: [("Accept-Language", "pt-BR")])
        #expect(Self.messages(mixed).first == "Este campo é obrigatório.")
        #expect(mixed.header("Content-Language") == "pt-BR, en")
        // `?lang=` wins over the header; a malformed one is refused.
        let overridden = try await client.postJSON("/v1/forms/cadastro/validate?lang=es", Self.invalid, headers: [("Accept-Language", "pt-BR")])
        #expect(Self.messages(overridden).first == "Este campo es obligatorio.")
        #expect(try await client.postJSON("/v1/forms/cadastro/validate?lang=pt_BR", Self.invalid).status == 400)
        await server.finish()
    }

    @Test func aDraftsErrorsSpeakTheRequestsLanguage() async throws {
        let server = try await Self.server()
        let reply = try await server.client.send("POST", "/v1/forms/cadastro/drafts",
                                                 headers: [("Content-Type", "application/json"), ("Accept-Language", "pt-BR")],
                                                 body: Array(#"{"values": {"age": 7}}"#.utf8))
        #expect(reply.status == 201)
        #expect(Self.messages(reply) == ["O valor deve ser no mínimo 18."])
        #expect(reply.header("Content-Language") == "pt-BR" && reply.header("Vary")?.contains("Accept-Language") == true)
        await server.finish()
    }

    @Test func theFormInEachLanguage() async throws {
        let server = try await Self.server()
        let client = server.client
        var etags = Set<String>()
        for (asked, language, title) in [("pt-BR", "pt-BR", "Cadastro"), ("es-MX, en;q=0.5", "es", "Registro"), ("fr", "en", "Sign up")] {
            let fetched = try await client.get("/v1/forms/cadastro", headers: [("Accept-Language", asked)])
            #expect(fetched.status == 200)
            #expect(fetched.header("Content-Language") == language)
            #expect(fetched.header("Vary")?.contains("Accept-Language") == true)
            #expect(fetched.object["title"] as? String == title)
            let name = ((fetched.object["components"] as? [[String: Any]])?.first?["text"] as? [String: Any])?["title"]
            #expect(name as? String == ["pt-BR": "Nome", "es": "Nombre", "en": "Name"][language])
            let etag = try #require(fetched.header("ETag"))
            etags.insert(etag)
            // The 304 honours the language: this tag matches this language's answer only; it names
            // the language too, as HEAD does.
            let unchanged = try await client.get("/v1/forms/cadastro", headers: [("Accept-Language", asked), ("If-None-Match", etag)])
            #expect(unchanged.status == 304 && unchanged.header("Content-Language") == language)
            #expect(unchanged.header("Vary")?.contains("Accept-Language") == true)
            let head = try await client.send("HEAD", "/v1/forms/cadastro", headers: [("Accept-Language", asked)])
            #expect(head.status == 200 && head.header("Content-Language") == language && head.header("ETag") == etag)
            let other = asked == "fr" ? "pt-BR" : "fr"
            #expect(try await client.get("/v1/forms/cadastro", headers: [("Accept-Language", other), ("If-None-Match", etag)]).status == 200)
        }
        #expect(etags.count == 3)
        let noPreference = try await client.get("/v1/forms/cadastro")
        #expect(noPreference.header("Content-Language") == "en")
        // `?lang=` overrides the header.
        let overridden = try await client.get("/v1/forms/cadastro?lang=es", headers: [("Accept-Language", "pt-BR")])
        #expect(overridden.object["title"] as? String == "Registro")
        #expect(try await client.get("/v1/forms/cadastro?lang=not%20a%20tag").status == 400)
        await server.finish()
    }

    @Test func everyLanguageAtOnceWithLangStar() async throws {
        let server = try await Self.server()
        let all = try await server.client.get("/v1/forms/cadastro?lang=*")
        #expect(all.status == 200)
        #expect(all.header("Content-Language") == nil)
        #expect(all.object["title"] as? [String: String] == ["en": "Sign up", "pt-BR": "Cadastro", "es": "Registro"])
        let etag = try #require(all.header("ETag"))
        #expect(etag != (try await server.client.get("/v1/forms/cadastro")).header("ETag"))
        #expect(try await server.client.get("/v1/forms/cadastro?lang=*", headers: [("If-None-Match", etag)]).status == 304)
        // `Accept-Language: *` is any language, so the default one: strings, not the maps.
        let any = try await server.client.get("/v1/forms/cadastro", headers: [("Accept-Language", "*")])
        #expect(any.object["title"] as? String == "Sign up", "\(any.text)")
        #expect(any.header("Content-Language") == "en")
        // An admin reads the maps back as stored, with the version's own ETag.
        let stored = try await server.client.admin("GET", "/v1/admin/forms/cadastro")
        #expect(stored.object["title"] as? [String: String] == ["en": "Sign up", "pt-BR": "Cadastro", "es": "Registro"])
        #expect(stored.header("ETag") == "\"1\"")
        await server.finish()
    }

    /// The formworks profile always carries plain strings, in the negotiated language.
    @Test func theFormworksProfileHasPlainStrings() async throws {
        let server = try await Self.server()
        for (asked, language, title) in [("pt-BR", "pt-BR", "Cadastro"), ("es", "es", "Registro"), ("fr", "en", "Sign up")] {
            let profile = try await server.client.get("/v1/forms/cadastro?profile=formworks", headers: [("Accept-Language", asked)])
            #expect(profile.status == 200)
            #expect(profile.object["title"] as? String == title)
            #expect(profile.header("Content-Language") == language)
            // What Formworks' decoder requires: plain strings (LocalizedDefinitionTests decodes them with its model).
            let components = (profile.object["components"] as? [[String: [String: Any]]] ?? []).compactMap(\.values.first)
            #expect(components.count == 3)
            #expect(components.allSatisfy { $0["title"] is String && $0["description"] is String })
        }
        // Not even `?lang=*` gives a profile client a map: it gets the default language.
        let all = try await server.client.get("/v1/forms/cadastro?profile=formworks&lang=*")
        #expect(all.object["title"] as? String == "Sign up")
        await server.finish()
    }

    /// A form without maps is served as before: one ETag, its default language named.
    @Test func aPlainFormKeepsItsETag() async throws {
        let server = try await InProcessServer()
        _ = try await server.client.admin("PUT", "/v1/admin/forms/signup", json: Fixtures.signup)
        for asked in ["pt-BR", "es"] {
            let fetched = try await server.client.get("/v1/forms/signup", headers: [("Accept-Language", asked)])
            #expect(fetched.header("ETag") == "\"1\"")
            #expect(fetched.header("Content-Language") == "en")
            #expect(fetched.header("Vary")?.contains("Accept-Language") == true)
        }
        await server.finish()
    }
}
