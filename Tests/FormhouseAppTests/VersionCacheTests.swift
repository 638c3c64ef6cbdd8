import FormEngine
import FormStore
import Foundation
import Testing
@testable import FormhouseApp

/// Old versions can be asked for without a token, so the catalog keeps only a bounded number
/// compiled, dropping the least recently used.
@Suite struct VersionCacheTests {
    private static func form(_ version: Int) throws -> PublishedForm {
        let definition = try FormDefinition(json: Array(#"{"title": "T", "components": [{"text": {"id": "a", "title": "A"}}]}"#.utf8))
        return PublishedForm(id: "f", version: version, title: "T", createdAt: Date(), definition: definition, body: [], formworksBody: [])
    }

    @Test func theLeastRecentlyUsedVersionGoes() throws {
        var cache = VersionCache(capacity: 3)
        for version in 1...3 { cache.put(VersionKey(id: "f", version: version), try Self.form(version)) }
        #expect(cache.get(VersionKey(id: "f", version: 1))?.version == 1)  // 2 is now the oldest use
        cache.put(VersionKey(id: "f", version: 4), try Self.form(4))
        #expect(cache.count == 3)
        #expect(cache.get(VersionKey(id: "f", version: 2)) == nil)
        for version in [1, 3, 4] { #expect(cache.get(VersionKey(id: "f", version: version))?.version == version) }
        for version in 5...100 { cache.put(VersionKey(id: "f", version: version), try Self.form(version)) }
        #expect(cache.count == 3)
        #expect(cache.get(VersionKey(id: "f", version: 100))?.version == 100)
    }
}

extension VersionCacheTests {
    /// Requests that want the same version at once share one compile.
    @Test func concurrentRequestsShareOneCompile() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let store = try SQLiteFormStore(directory: data.url)
        defer { store.close() }
        for title in ["One", "Two"] {
            let definition = #"{"id": "f", "title": "\#(title)", "components": [{"text": {"id": "a", "title": "A"}}]}"#
            _ = try await store.saveFormVersion(formID: "f", definition: definition, title: title, contentHash: title)
        }
        let catalog = FormCatalog(store: store)
        let forms = try await withThrowingTaskGroup(of: PublishedForm?.self) { group in
            for index in 0..<20 {
                group.addTask { index % 2 == 0 ? try await catalog.version(id: "f", version: 1) : try await catalog.current(id: "f") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(forms.count == 20)
        #expect(catalog.compiles.load(ordering: .relaxed) == 2)
        let ones = forms.compactMap { $0 }.filter { $0.version == 1 }
        #expect(ones.count == 10 && ones.allSatisfy { $0 === ones[0] })
        // Both stay compiled: asking again compiles nothing.
        _ = try await catalog.version(id: "f", version: 1)
        _ = try await catalog.version(id: "f", version: 2)
        #expect(catalog.compiles.load(ordering: .relaxed) == 2)
    }

    /// Past the cap on old versions compiled at once for public requests, the answer is 503; a
    /// version already in memory is served whatever the cap.
    @Test func oldVersionCompilesAreCapped() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let store = try SQLiteFormStore(directory: data.url)
        defer { store.close() }
        let definition = #"{"id": "f", "title": "T", "components": [{"text": {"id": "a", "title": "A"}}]}"#
        _ = try await store.saveFormVersion(formID: "f", definition: definition, title: "T", contentHash: "h")
        let catalog = FormCatalog(store: store, maximumOldCompiles: 0)
        do {
            _ = try await catalog.oldVersion(id: "f", version: 1, charge: {})
            Issue.record("compiled past the cap")
        } catch let failure as CatalogFailure {
            #expect(failure == .tooManyCompiles)
        }
        #expect(try await catalog.version(id: "f", version: 1)?.version == 1)
        #expect(try await catalog.oldVersion(id: "f", version: 1, charge: { Issue.record("charged for a version in memory") })?.version == 1)
    }
}
