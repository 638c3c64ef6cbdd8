import Foundation
import GRDB
import StoreTestSupport
import Testing

@testable import FormStore

/// A damaged database file fails readiness, not only the requests that meet the damage.
@Suite struct CorruptionTests {
    /// A store with a form and a submission, closed, then `table`'s root page overwritten; the schema
    /// page and the other tables stay intact.
    static func storeWithDamaged(_ table: String) async throws -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        let store = try SQLiteFormStore(directory: directory.url)
        try await makeForm(store)
        _ = try await store.insertSubmission(newSubmission())
        try await store.ping()
        store.close()
        try await overwriteRootPage(of: table, in: directory.url.appendingPathComponent(SQLiteStoreConfiguration().fileName).path)
        return directory
    }

    static func overwriteRootPage(of table: String, in path: String) async throws {
        let (root, pageSize) = try await DatabaseQueue(path: path).read { db in
            (try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = ?", arguments: [table]),
             try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4_096)
        }
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: UInt64((try #require(root) - 1) * pageSize))
        try handle.write(contentsOf: Data((0..<pageSize).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }))
        try handle.close()
    }

    @Test func aDamagedTableFailsReadinessAndKeepsFailingIt() async throws {
        let directory = try await Self.storeWithDamaged("submissions")

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

    /// Once damage is found, writes are refused and the WAL is left alone: a write acknowledged after
    /// that would reach the WAL, and a checkpoint at close would carry it into the damaged file, where
    /// a restart could not read it.
    @Test func writesStopOnceDamageIsFound() async throws {
        // Damage a table submissions never touch, so only readiness meets it.
        let directory = try await Self.storeWithDamaged("delivery_attempts")
        let path = directory.url.appendingPathComponent(SQLiteStoreConfiguration().fileName).path

        let store = try SQLiteFormStore(directory: directory.url)
        _ = try await store.insertSubmission(newSubmission(id: "before"))
        await #expect(throws: StoreError.self) { try await store.ping() }
        let failedGroups = store.commitStatistics.failedGroups
        do {
            _ = try await store.insertSubmission(newSubmission(id: "after"))
            Issue.record("a submission was stored after the file was found damaged")
        } catch let error as StoreError {
            #expect(error.code == "store_unavailable")
            #expect("\(error)".contains("writes are stopped"), "\(error)")
        }
        // Refused before joining a group, so not logged as a failed group, one per request.
        #expect(store.commitStatistics.failedGroups == failedGroups)
        await #expect(throws: StoreError.self) { _ = try await store.saveFormVersion(
            formID: "other", definition: "{}", title: "Other", contentHash: "h") }
        store.close()
        // The WAL still holds "before": the close did not checkpoint it into the damaged file.
        let wal = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        #expect(wal > 0)
    }

    /// A COMMIT that fails with an I/O error may still be in the log (SQLite wrote the frames before
    /// the fsync failed), and after a failed fsync nothing later can be promised: its callers learn
    /// the outcome is unknown, and the store takes no more writes until a restart.
    @Test func anIOErrorWhileCommittingStopsWritesUntilARestart() async throws {
        let directory = TemporaryDirectory()
        let failing = Flag(false)
        var configuration = SQLiteStoreConfiguration()
        configuration.beforeGroupCommit = {
            if failing.isOn { throw DatabaseError(resultCode: .SQLITE_IOERR_FSYNC, message: "disk I/O error") }
        }
        do {
            let store = try SQLiteFormStore(directory: directory.url, configuration: configuration)
            try await makeForm(store)
            _ = try await store.insertSubmission(newSubmission(id: "kept"))
            failing.isOn = true
            do {
                _ = try await store.insertSubmission(newSubmission(id: "unknown"))
                Issue.record("the failed commit was acknowledged")
            } catch let error as StoreError {
                #expect(error.code == "store_outcome_unknown", "\(error)")
            }
            failing.isOn = false
            do {
                _ = try await store.insertSubmission(newSubmission(id: "refused"))
                Issue.record("a write was taken after an I/O error")
            } catch let error as StoreError {
                #expect(error.code == "store_unavailable")
            }
            // Closed before any read opened a reader: the writer is the last connection, which would
            // checkpoint at its close unless told not to.
            store.close()
        }
        let path = directory.url.appendingPathComponent(SQLiteStoreConfiguration().fileName).path
        let wal = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        #expect(wal > 0, "the WAL was checkpointed at close after an I/O error")
        do {
            let store = try SQLiteFormStore(directory: directory.url, configuration: configuration)
            failing.isOn = true
            _ = try? await store.insertSubmission(newSubmission(id: "unknown-2"))
            do {
                try await store.ping()
                Issue.record("the store reported ready after an I/O error")
            } catch {
                #expect("\(error)".contains("I/O error"), "\(error)")
            }
            #expect(try await store.submission(id: "kept") != nil)
            store.close()
        }
        // A restart (a new store on the same files) writes again.
        let store = try SQLiteFormStore(directory: directory.url)
        defer { store.close() }
        try await store.ping()
        #expect(try await store.insertSubmission(newSubmission(id: "later")) == .inserted)
        #expect(try await store.submission(id: "kept") != nil)
    }
}
