import FormEngine
import FormStore
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
    /// The normalized definition with its `version`, exactly as `GET /v1/forms/{id}` sends it.
    let body: [UInt8]
    /// The same form in the five Formworks types (`?profile=formworks`); nil for a stored form whose
    /// repeats expand past what an upload may (see `FormDefinition.formworksProfileTooLarge`).
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

/// Reads forms through an in-memory cache so the hot paths (fetching a form, validating a submission)
/// do not parse a definition or touch the database per request. This process is the only writer, so
/// every admin write invalidates the entry it changes.
final class FormCatalog: Sendable {
    private let store: any FormStore
    /// The current versions, and a count of invalidations: a read that started before a write must
    /// not cache what it read after that write's invalidation (it would serve the old version on).
    private let current = Mutex<(forms: [String: PublishedForm], generation: Int)>(([:], 0))
    /// Versions by number, bounded: anyone may ask for any old version (`?version=n`), and each
    /// holds a compiled definition (tens of MiB for a large one). `loading` holds the compile in
    /// progress of each version, which every request for it shares.
    private let versions: Mutex<VersionState>

    private struct VersionState {
        var cache: VersionCache
        var loading: [VersionKey: Task<PublishedForm, any Error>] = [:]
        /// Compiles started for public requests for old versions and still running.
        var cappedCompiles = 0
    }

    /// Versions compiled since start (for tests).
    let compiles = Atomic<Int>(0)

    init(store: any FormStore, cachedVersions: Int = 16, maximumOldCompiles: Int = 2) {
        self.store = store
        self.maximumOldCompiles = maximumOldCompiles
        versions = Mutex(VersionState(cache: VersionCache(capacity: cachedVersions)))
    }

    /// Compiles of old versions for public requests (`?version=n`, a body's `formVersion`) that may
    /// run at once; a request that would start one more gets 503, so cycling through old versions
    /// cannot take every core. Joining a compile already running is always allowed.
    private let maximumOldCompiles: Int

    /// An old version for a public request. One not in memory costs a compile, so `charge` runs
    /// first (the client's rate limit, which may throw 429), and the compile runs under the
    /// `maximumOldCompiles` cap.
    func oldVersion(id: String, version: Int, charge: () throws -> Void) async throws -> PublishedForm? {
        if let cached = versions.withLock({ $0.cache.get(VersionKey(id: id, version: version)) }) { return cached }
        try charge()
        return try await self.version(id: id, version: version, capped: true)
    }

    /// The form's current version, or nil when it does not exist or was deleted.
    func current(id: String) async throws -> PublishedForm? {
        let (cached, generation) = current.withLock { ($0.forms[id], $0.generation) }
        if let cached { return cached }
        guard let record = try await store.currentForm(id: id) else { return nil }
        // A version is immutable (numbers are never reused, even after a delete), so one already
        // published, as a save does to answer, is not compiled again: a definition with many
        // large regexes takes seconds to compile.
        let form = try await published(record)
        current.withLock { state in
            if state.generation == generation { state.forms[id] = form }
        }
        return form
    }

    /// Any version ever stored, even of a form deleted since.
    func version(id: String, version: Int, capped: Bool = false) async throws -> PublishedForm? {
        if let cached = versions.withLock({ $0.cache.get(VersionKey(id: id, version: version)) }) { return cached }
        guard let record = try await store.formVersion(id: id, version: version) else { return nil }
        return try await published(record, capped: capped)
    }

    private enum Lookup {
        case ready(PublishedForm)
        case loading(Task<PublishedForm, any Error>)
        case refused
    }

    /// The version compiled once, however many requests ask for it at the same time (after a
    /// restart, every submission to a form wants its current version at once).
    private func published(_ record: FormVersionRecord, capped: Bool = false) async throws -> PublishedForm {
        let key = VersionKey(id: record.formID, version: record.version)
        let maximum = maximumOldCompiles
        let lookup = versions.withLock { state -> Lookup in
            if let form = state.cache.get(key) { return .ready(form) }
            if let task = state.loading[key] { return .loading(task) }
            if capped {
                guard state.cappedCompiles < maximum else { return .refused }
                state.cappedCompiles += 1
            }
            compiles.wrappingAdd(1, ordering: .relaxed)
            let task = Task {
                defer { if capped { self.versions.withLock { $0.cappedCompiles -= 1 } } }
                return try await Self.publish(record)
            }
            state.loading[key] = task
            return .loading(task)
        }
        let task: Task<PublishedForm, any Error>
        switch lookup {
        case .ready(let form): return form
        case .loading(let loading): task = loading
        case .refused: throw APIProblem.unavailable("Too many old form versions are being prepared at once; retry shortly.")
        }
        // Only the compile this request waited on is cleared: a later one for the same key (after an
        // eviction) may be running by the time a slow waiter resumes.
        do {
            let form = try await task.value
            versions.withLock { state in
                if state.loading[key] == task { state.loading[key] = nil }
                state.cache.put(key, form)
            }
            return form
        } catch {
            versions.withLock { state in
                if state.loading[key] == task { state.loading[key] = nil }
            }
            throw error
        }
    }

    /// Normalizes and stores a definition; an identical one keeps its version. The answer is the
    /// version this call saved, even when another save has made a later one current since.
    /// Saves a new version, or with `createOnly` a new form only (``StoreError/conflict(_:)`` when it exists).
    func save(
        id: String, definition: FormDefinition, createOnly: Bool = false, precondition: (@Sendable (Int?) -> Bool)? = nil
    ) async throws -> (form: PublishedForm, created: Bool) {
        // `version` is the server's: it is added to every definition served, so a definition read
        // and put back unchanged must not count it as content, or every such save would make a new
        // version.
        let normalized = definition.normalizedJSON().withoutMember("version").withMember("id", .string(id))
        let text = String(decoding: normalized.serialized(), as: UTF8.self)
        // Hashed with keys sorted: the same definition with members in another order, or `id` given
        // in the body or only in the path, is the same content.
        let hash = SubmissionService.hash(normalized.sortingKeys().serialized())
        let saved = try await store.saveFormVersion(
            formID: id, definition: text, title: definition.title, contentHash: hash, createOnly: createOnly,
            precondition: precondition)
        invalidate(id: id)
        guard let form = try await version(id: id, version: saved.version) else {
            throw APIProblem.unavailable("The form was saved but could not be read back; retry the request.")
        }
        return (form, saved.createdForm)
    }

    func delete(id: String, precondition: (@Sendable (Int?) -> Bool)? = nil) async throws -> Bool {
        let deleted = try await store.deleteForm(id: id, precondition: precondition)
        invalidate(id: id)
        return deleted
    }

    func invalidate(id: String) {
        current.withLock { state in
            state.forms.removeValue(forKey: id)
            state.generation += 1
        }
    }

    /// Parses and compiles a stored version off the event loop (a large definition takes a good
    /// part of a second, and any old version can be asked for without a token).
    private static func publish(_ record: FormVersionRecord) async throws -> PublishedForm {
        try await Offload.run {
            // Stored definitions were validated on upload; failing here means the row is damaged.
            let definition = try FormDefinition(json: Array(record.definition.utf8), reading: .stored)
            let normalized = definition.normalizedJSON()
            return PublishedForm(
                id: record.formID, version: record.version, title: record.title, createdAt: record.createdAt,
                definition: definition,
                body: normalized.withMember("version", .number(Double(record.version))).serialized(),
                formworksBody: definition.formworksProfileTooLarge
                    ? nil : definition.formworksProfile().withMember("version", .number(Double(record.version))).serialized()
            )
        }
    }
}

struct VersionKey: Hashable { var id: String; var version: Int }

/// The least recently used entry goes once more than `capacity` are kept.
struct VersionCache {
    let capacity: Int
    private var entries: [VersionKey: (form: PublishedForm, lastUse: Int)] = [:]
    private var clock = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { entries.count }

    mutating func get(_ key: VersionKey) -> PublishedForm? {
        guard let form = entries[key]?.form else { return nil }
        clock += 1
        entries[key]?.lastUse = clock
        return form
    }

    mutating func put(_ key: VersionKey, _ form: PublishedForm) {
        clock += 1
        entries[key] = (form, clock)
        if entries.count > capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            entries.removeValue(forKey: oldest)
        }
    }
}
