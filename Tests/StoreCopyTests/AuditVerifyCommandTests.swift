import FormStore
import Foundation
import GRDB
import StoreTestSupport
import Testing

/// `formhouse audit verify` as an operator runs it: the built executable on a data directory, beside
/// nothing or a running server, before and after someone edits the log in the database file.
@Suite struct AuditVerifyCommandTests {
    static func makeLog(in directory: URL, entries: Int) async throws {
        let store = try SQLiteFormStore(directory: directory)
        defer { store.close() }
        for version in 1...entries {
            _ = try await store.saveFormVersion(
                formID: "signup", definition: "{}", title: "Sign up", contentHash: "h\(version)", createOnly: false, precondition: nil,
                audit: AuditNote(actor: "ops", action: "form.saved", route: "PUT /v1/admin/forms/{id}", target: "signup"))
        }
    }

    @Test func passesAWholeLogAndNamesTheEntryOfAnEditedOne() async throws {
        let directory = TemporaryDirectory()
        try await Self.makeLog(in: directory.url, entries: 3)

        let whole = try MigrateCommandTests.run(["audit", "verify", "--data-dir", directory.url.path])
        #expect(whole.status == 0, "\(whole.output)")
        let head = try #require(whole.output.firstMatch(of: /The audit log is whole: 3 entries; the newest is (3:[0-9a-f]{64})\n/)?.1)
        let anchored = try MigrateCommandTests.run(["audit", "verify", "--data-dir", directory.url.path, "--expect-head", String(head)])
        #expect(anchored.status == 0, "\(anchored.output)")

        let database = try DatabaseQueue(path: directory.url.appendingPathComponent("formhouse.sqlite").path)
        await #expect(throws: DatabaseError.self) {
            try await database.write { db in try db.execute(sql: "UPDATE audit_log SET actor = 'someone' WHERE sequence = 2") }
        }
        try await database.write { db in
            try db.execute(sql: "DROP TRIGGER audit_log_no_update; UPDATE audit_log SET actor = 'someone' WHERE sequence = 2")
        }
        let edited = try MigrateCommandTests.run(["audit", "verify", "--data-dir", directory.url.path])
        #expect(edited.status == 1)
        #expect(edited.output == "The audit log is broken at entry 2: its fields do not match its hash.\n", "\(edited.output)")

        // The newest entry cut off: whole as a chain, not against the head noted before.
        try await database.write { db in
            try db.execute(sql: "DROP TRIGGER audit_log_no_delete; UPDATE audit_log SET actor = 'ops' WHERE sequence = 2; DELETE FROM audit_log WHERE sequence = 3")
        }
        try database.close()
        #expect(try MigrateCommandTests.run(["audit", "verify", "--data-dir", directory.url.path]).status == 0)
        let cut = try MigrateCommandTests.run(["audit", "verify", "--data-dir", directory.url.path, "--expect-head", String(head)])
        #expect(cut.status == 1)
        #expect(cut.output.contains("broken at entry 3: the log ends at entry 2, before the expected head"), "\(cut.output)")
    }

    @Test func saysWhatIsMissingOrMalformed() throws {
        let directory = TemporaryDirectory()
        let missing = try MigrateCommandTests.run(["audit", "verify", "--data-dir", directory.url.path])
        #expect(missing.status != 0)
        #expect(missing.output.contains("there is no database at"), "\(missing.output)")
        let malformed = try MigrateCommandTests.run(["audit", "verify", "--data-dir", directory.url.path, "--expect-head", "three"])
        #expect(malformed.status != 0)
        #expect(malformed.output.contains("--expect-head takes <sequence>:<64 hex digits>"), "\(malformed.output)")
    }
}
