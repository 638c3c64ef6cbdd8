import FormEngine
import FormStore
import Synchronization

/// Reads forms through an in-memory cache so the hot paths (fetching a form, validating a submission)
/// do not parse a definition or touch the database per request. Every admin write of this process
/// invalidates the entry it changes; a store that other nodes write too reports their changes
/// (`onFormChanged`), which invalidate the same way.
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
        case .refused: throw CatalogFailure.tooManyCompiles
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
        id: String, definition: FormDefinition, createOnly: Bool = false, precondition: (@Sendable (Int?) -> Bool)? = nil,
        audit: AuditNote? = nil
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
            precondition: precondition, audit: audit)
        invalidate(id: id)
        guard let form = try await version(id: id, version: saved.version) else {
            throw CatalogFailure.savedButUnreadable
        }
        return (form, saved.createdForm)
    }

    func delete(id: String, precondition: (@Sendable (Int?) -> Bool)? = nil, audit: AuditNote? = nil) async throws -> Bool {
        let deleted = try await store.deleteForm(id: id, precondition: precondition, audit: audit)
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
                formworksBody: definition.formworksProfileRefusal != nil
                    ? nil : definition.formworksProfile().withMember("version", .number(Double(record.version))).serialized()
            )
        }
    }
}

/// Why the catalog could not hand out a form; answered as 503s in `ProblemMapping.swift`.
enum CatalogFailure: Error, Sendable {
    /// Too many old versions are being compiled at once (each costs like a submission).
    case tooManyCompiles
    /// A version was saved but reading it back failed.
    case savedButUnreadable
}
