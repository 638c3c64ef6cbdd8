import FormEngine
import Foundation
import HTTPServer

/// A stored form version, parsed once and kept ready to serve and validate against. Immutable and a
/// class, so that handing the cached form to a request costs one retain, not one per field.
final class PublishedForm: Sendable {
    let id: String
    let version: Int
    let title: String
    let createdAt: Date
    let definition: FormDefinition
    /// The normalized definition with its `version`, exactly as `GET /v1/forms/{id}` sends it.
    let body: [UInt8]
    /// The same form in the five Formworks types (`?profile=formworks`); nil when the profile cannot
    /// serve it (see `FormDefinition.formworksProfileRefusal`).
    let formworksBody: [UInt8]?
    /// The answer's headers for each representation, built once (a form is fetched far more often
    /// than it changes).
    let headers: Representation<HTTPHeaders>

    struct Representation<T: Sendable>: Sendable {
        var full: T
        var formworks: T
    }

    init(id: String, version: Int, title: String, createdAt: Date, definition: FormDefinition, body: [UInt8], formworksBody: [UInt8]?) {
        self.id = id
        self.version = version
        self.title = title
        self.createdAt = createdAt
        self.definition = definition
        self.body = body
        self.formworksBody = formworksBody
        func headers(_ etag: String) -> HTTPHeaders {
            ["Content-Type": "application/json", "ETag": etag, "Cache-Control": "no-cache"]
        }
        self.headers = Representation(full: headers("\"\(version)\""), formworks: headers("\"\(version)-formworks\""))
    }

    var etag: String { headers.full["ETag"] ?? "" }
}
