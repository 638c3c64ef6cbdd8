import FormEngine
import Foundation
import HTTPServer
import Synchronization

/// A stored form version, parsed once and kept ready to serve and validate against. Immutable and a
/// class, so that handing the cached form to a request costs one retain, not one per field.
final class PublishedForm: Sendable {
    let id: String
    let version: Int
    let title: String
    let createdAt: Date
    let definition: FormDefinition
    /// The normalized definition with its `version`, text maps and all: what an admin reads back,
    /// and what `GET /v1/forms/{id}` sends for a form without text maps.
    let body: [UInt8]
    /// The same form in the five Formworks types (`?profile=formworks`); nil when the profile cannot
    /// serve it (see `FormDefinition.formworksProfileRefusal`).
    let formworksBody: [UInt8]?
    /// The public answer for each representation of a form without text maps, built once (a form is
    /// fetched far more often than it changes).
    private let plain: Representation<Answer?>
    /// A translated form's answers by representation and language, each built on its first request.
    private let translated = Mutex<[AnswerKey: Answer]>([:])

    /// The `ETag` of the stored version, as admin routes send and `If-Match` compares it.
    let etag: String

    struct Representation<T: Sendable>: Sendable {
        var full: T
        var formworks: T
    }

    /// The bytes and headers of one answer of `GET /v1/forms/{id}`.
    struct Answer: Sendable {
        var body: [UInt8]
        var headers: HTTPHeaders
    }

    /// Which answer: a profile, and a language (nil for the text maps, `?lang=*`).
    private struct AnswerKey: Hashable {
        var formworks: Bool
        var language: String?
    }

    init(id: String, version: Int, title: String, createdAt: Date, definition: FormDefinition, body: [UInt8], formworksBody: [UInt8]?) {
        self.id = id
        self.version = version
        self.title = title
        self.createdAt = createdAt
        self.definition = definition
        self.body = body
        self.formworksBody = formworksBody
        etag = "\"\(version)\""
        if definition.isTranslated {
            plain = Representation(full: nil, formworks: nil)
        } else {
            let language = definition.defaultLanguage
            plain = Representation(
                full: Answer(body: body, headers: Self.headers(etag: "\"\(version)\"", language: language)),
                formworks: formworksBody.map { Answer(body: $0, headers: Self.headers(etag: "\"\(version)-formworks\"", language: language)) })
        }
    }

    /// The answer in `language` (one of the definition's languages; nil for the text maps, which the
    /// formworks profile never sends), or nil when the formworks profile cannot serve this form.
    /// Each is built once per version and language; a large one off the event loop.
    func answer(_ profile: FormProfile, language: String?) async throws -> Answer? {
        let formworks = profile == .formworks
        guard definition.isTranslated else { return formworks ? plain.formworks : plain.full }
        if formworks, formworksBody == nil { return nil }
        let key = AnswerKey(formworks: formworks, language: formworks ? language ?? definition.defaultLanguage : language)
        if let built = translated.withLock({ $0[key] }) { return built }
        let build: @Sendable () -> Answer = { [self] in localizedAnswer(key) }
        let answer = body.count > SubmissionService.offloadBytes ? try await Offload.run(build) : build()
        translated.withLock { $0[key] = answer }
        return answer
    }

    private func localizedAnswer(_ key: AnswerKey) -> Answer {
        let version = JSONValue.number(Double(self.version))
        let profile = key.formworks ? "-formworks" : ""
        guard let language = key.language else {
            return Answer(body: body, headers: Self.headers(etag: "\"\(self.version)-*\"", language: nil))
        }
        let json = key.formworks ? definition.formworksProfile(language: language) : definition.normalizedJSON(language: language)
        return Answer(body: json.withMember("version", version).serialized(),
                      headers: Self.headers(etag: "\"\(self.version)\(profile)-\(language)\"", language: language))
    }

    /// A public answer's headers: its language, and `Vary`, since which one is sent depends on
    /// `Accept-Language`.
    private static func headers(etag: String, language: String?) -> HTTPHeaders {
        var headers: HTTPHeaders = ["Content-Type": "application/json", "ETag": etag, "Cache-Control": "no-cache",
                                    "Vary": "Accept-Language"]
        if let language { headers.set("Content-Language", language) }
        return headers
    }
}
