import Crypto
import FormEngine
import FormStore
import Foundation
import Synchronization

/// A stored form version, parsed once and kept ready to serve and validate against.
struct PublishedForm: Sendable {
    var id: String
    var version: Int
    var title: String
    var createdAt: Date
    var definition: FormDefinition
    /// The normalized definition with its `version`, exactly as `GET /v1/forms/{id}` sends it.
    var body: [UInt8]
    /// The same form in the five Formworks types (`?profile=formworks`).
    var formworksBody: [UInt8]
    var etag: String { "\"\(version)\"" }
}

/// Reads forms through an in-memory cache so the hot paths (fetching a form, validating a submission)
/// do not parse a definition or touch the database per request. This process is the only writer, so
/// every admin write invalidates the entry it changes.
final class FormCatalog: Sendable {
    private let store: any FormStore
    private let current = Mutex<[String: PublishedForm]>([:])
    private let versions = Mutex<[VersionKey: PublishedForm]>([:])

    private struct VersionKey: Hashable { var id: String; var version: Int }

    init(store: any FormStore) { self.store = store }

    /// The form's current version, or nil when it does not exist or was deleted.
    func current(id: String) async throws -> PublishedForm? {
        if let cached = current.withLock({ $0[id] }) { return cached }
        guard let record = try await store.currentForm(id: id) else { return nil }
        let form = try publish(record)
        current.withLock { $0[id] = form }
        return form
    }

    /// Any version ever stored, even of a form deleted since.
    func version(id: String, version: Int) async throws -> PublishedForm? {
        let key = VersionKey(id: id, version: version)
        if let cached = versions.withLock({ $0[key] }) { return cached }
        guard let record = try await store.formVersion(id: id, version: version) else { return nil }
        let form = try publish(record)
        versions.withLock { $0[key] = form }
        return form
    }

    /// Normalizes and stores a definition; an identical one keeps its version.
    func save(id: String, definition: FormDefinition) async throws -> (form: PublishedForm, created: Bool) {
        let normalized = definition.normalizedJSON().withMember("id", .string(id))
        let text = String(decoding: normalized.serialized(), as: UTF8.self)
        let hash = SHA256.hash(data: Array(text.utf8)).map { String(format: "%02x", $0) }.joined()
        let saved = try await store.saveFormVersion(formID: id, definition: text, title: definition.title, contentHash: hash)
        invalidate(id: id)
        guard let form = try await current(id: id), form.version == saved.version else {
            throw APIProblem.unavailable("The form was saved but could not be read back; retry the request.")
        }
        return (form, saved.createdForm)
    }

    func delete(id: String) async throws -> Bool {
        let deleted = try await store.deleteForm(id: id)
        invalidate(id: id)
        return deleted
    }

    func invalidate(id: String) {
        current.withLock { _ = $0.removeValue(forKey: id) }
    }

    private func publish(_ record: FormVersionRecord) throws -> PublishedForm {
        // Stored definitions were validated on upload; failing here means the row is damaged.
        let definition = try FormDefinition(json: Array(record.definition.utf8))
        let normalized = definition.normalizedJSON()
        return PublishedForm(
            id: record.formID, version: record.version, title: record.title, createdAt: record.createdAt,
            definition: definition,
            body: normalized.withMember("version", .number(Double(record.version))).serialized(),
            formworksBody: definition.formworksProfile().withMember("version", .number(Double(record.version))).serialized()
        )
    }
}
