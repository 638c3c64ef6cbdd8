import Foundation
import GRDB
import Testing

@testable import FormStore

/// A damaged database file fails readiness, not only the requests that meet the damage.
@Suite struct CorruptionTests {
    @Test func aDamagedTableFailsReadinessAndKeepsFailingIt() async throws {
        let directory = TemporaryDirectory()
        let path = directory.url.appendingPathComponent(SQLiteStoreConfiguration().fileName).path
        do {
            let store = try SQLiteFormStore(directory: directory.url)
            try await makeForm(store)
            _ = try await store.insertSubmission(newSubmission())
            try await store.ping()
            store.close()
        }
        // Overwrite the submissions table's root page; the schema page and the others stay intact.
        let (root, pageSize) = try await DatabaseQueue(path: path).read { db in
            (try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'submissions'"),
             try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4_096)
        }
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: UInt64((try #require(root) - 1) * pageSize))
        try handle.write(contentsOf: Data((0..<pageSize).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }))
        try handle.close()

        let store = try SQLiteFormStore(directory: directory.url)
        defer { store.close() }
        // Forms still read: the damage is not everywhere, but the store is not ready.
        #expect(try await store.currentForm(id: "signup") != nil)
        await #expect(throws: StoreError.self) { try await store.ping() }
        // Once found, it stays found, whatever later reads happen to touch.
        do {
            try await store.ping()
            Issue.record("a damaged store reported ready")
        } catch {
            #expect("\(error)".contains("damaged"), "\(error)")
        }
    }
}
