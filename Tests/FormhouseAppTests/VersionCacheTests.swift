import FormEngine
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
