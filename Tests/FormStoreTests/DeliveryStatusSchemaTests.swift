import Foundation
import GRDB
import Testing

@testable import FormStore

/// The schema spells delivery statuses out in SQL (a CHECK constraint, the partial index that finds
/// due deliveries): those lists must be `DeliveryStatus`'s cases and its open ones, exactly.
@Suite struct DeliveryStatusSchemaTests {
    /// `status IN ('a', 'b')` in `sql`, as the set of quoted names; nil when there is none.
    static func statusList(in sql: String) -> Set<String>? {
        guard let match = sql.firstMatch(of: #/status IN \(([^)]*)\)/#) else { return nil }
        return Set(match.output.1.split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "'"))
        })
    }

    @Test func theSchemasStatusListsAreTheEnumsCases() async throws {
        try await withStore { store, directory in
            _ = try await store.listForms()
            let path = directory.url.appendingPathComponent(SQLiteStoreConfiguration().fileName).path
            let (table, indexes) = try await DatabaseQueue(path: path).read { db in
                (try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'deliveries'"),
                 try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'deliveries' AND sql LIKE '%status IN%'"))
            }
            #expect(Self.statusList(in: try #require(table)) == Set(DeliveryStatus.allCases.map(\.rawValue)))
            #expect(indexes.count == 2, "the partial indexes of due deliveries: \(indexes)")
            for index in indexes {
                #expect(Self.statusList(in: index) == Set(DeliveryStatus.allCases.filter(\.isOpen).map(\.rawValue)), "\(index)")
            }
        }
    }
}
