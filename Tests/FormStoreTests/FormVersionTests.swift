import Foundation
import GRDBSQLite
import StoreTestSupport
import Testing

@testable import FormStore

/// The forms checks that only the SQLite store has (its files, its pragmas, submission counts); the
/// forms semantics every store shares are in StoreConformanceTests.
@Suite struct FormVersionTests {
    @Test func listCountsSubmissionsPerForm() async throws {
        try await withStore { store, _ in
            try await makeForm(store, id: "a")
            try await makeForm(store, id: "b")
            for _ in 0..<3 { _ = try await store.insertSubmission(newSubmission(formID: "a")) }
            _ = try await store.insertSubmission(newSubmission(formID: "b"))
            let list = try await store.listForms()
            #expect(list.map(\.submissionCount) == [3, 1])
            #expect(list.map(\.title) == ["Form a", "Form b"])
            #expect(list.map(\.version) == [1, 1])
        }
    }

    @Test func databaseIsDurableWALInAPrivateDirectory() async throws {
        try await withStore { store, directory in
            #expect(try await store.writerSynchronousSetting() == 2)
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.url.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
            #expect(FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("formhouse.sqlite").path))
            let mode = try await store.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
            #expect(mode == "wal")
            try await store.ping()
        }
        try await withStore(SQLiteStoreConfiguration(synchronous: .normal)) { store, _ in
            let setting = try await store.writerSynchronousSetting()
            #expect(setting == 1)
        }
    }

    @Test func aNewDatabaseAndItsWALArePrivateInAnOpenDirectory() async throws {
        // A directory the operator made readable by all (a mounted volume, say): the files themselves
        // must not be, whatever the umask (the test process's is 022, which would give 0644).
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        func mode(_ name: String) throws -> Int? {
            let path = directory.url.appendingPathComponent(name).path
            return (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        }
        do {
            let store = try SQLiteFormStore(directory: directory.url)
            defer { store.close() }
            try await makeForm(store)
            _ = try await store.insertSubmission(newSubmission(id: "sub_private"))
            for name in ["formhouse.sqlite", "formhouse.sqlite-wal", "formhouse.sqlite-shm"] {
                #expect(try mode(name) == 0o600, "\(name)")
            }
        }
        // An existing file keeps the mode it was given.
        let path = directory.url.appendingPathComponent("formhouse.sqlite").path
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        let reopened = try SQLiteFormStore(directory: directory.url)
        defer { reopened.close() }
        #expect(try await reopened.submission(id: "sub_private") != nil)
        #expect(try mode("formhouse.sqlite") == 0o640)
    }

    @Test func sqliteKeepsNoMemoryStatistics() async throws {
        // Every SQLite open in this test process must come after the store's process settings (a test
        // that opens a raw GRDB queue before any store reads `SQLiteFormStore.processSettings` first).
        try await withStore { store, _ in
            #expect(SQLiteFormStore.processSettings == SQLITE_OK)
            #expect(sqlite3_memory_used() == 0)
            let before = sqlite3_memory_used()
            try await makeForm(store)
            for index in 0..<50 {
                _ = try await store.insertSubmission(newSubmission(id: "sub_mem_\(index)"))
            }
            // Counted, SQLite's heap would have grown by at least the 50 rows' page cache.
            #expect(sqlite3_memory_used() == before)
        }
    }

    @Test func closedStoreIsUnavailable() async throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteFormStore(directory: directory.url)
        try await makeForm(store)
        store.close()
        await #expect(throws: StoreError.self) { try await store.ping() }
        do {
            _ = try await store.insertSubmission(newSubmission())
            Issue.record("an insert into a closed store succeeded")
        } catch let error as StoreError {
            #expect(error.code == "store_unavailable")
        }
    }
}
