import FormStore
import Foundation
import GRDB
import PostgresNIO
import StoreTestSupport
import Synchronization
import Testing

@testable import PostgresFormStore

@Suite struct SQLiteToPostgresCopyTests {
    /// Small batches, so that every table (the two-column key of form_versions too) is paged, and the
    /// large body exceeds the byte bound on its own.
    static func copy(of directory: URL) -> SQLiteToPostgresCopy {
        var copy = SQLiteToPostgresCopy(databaseFile: directory.appendingPathComponent("formhouse.sqlite"))
        copy.batchRows = 4
        copy.batchBytes = 64 << 10
        return copy
    }

    @Test func copiesEveryRowByteForByteAndRefusesASecondRun() async throws {
        let directory = TemporaryDirectory()
        try await DataDirectoryFixture.make(in: directory.url)
        let target = try await PostgresFormStore(settings: try PostgresTestCluster.shared().freshDatabase())
        defer { target.close() }

        let file = directory.url.appendingPathComponent("formhouse.sqlite")
        let original = try Data(contentsOf: file)
        let reports = Reports()
        let counts = try await Self.copy(of: directory.url).run(into: target) { reports.append($0) }
        let unchanged = try Data(contentsOf: file) == original
        #expect(unchanged, "the copy wrote to the SQLite file")
        #expect(Dictionary(uniqueKeysWithValues: counts.map { ($0.table, $0.rows) }) == DataDirectoryFixture.counts)
        #expect(counts.map(\.table) == SQLiteToPostgresCopy.tables.map(\.name))
        let finished = reports.all.filter(\.finished)
        #expect(finished.map(\.table) == counts.map(\.table))
        #expect(finished.allSatisfy { $0.copied == $0.total })
        // The batch holding the large body ends after it, short of four rows.
        #expect(reports.all.filter { $0.table == "submissions" && !$0.finished }.map(\.copied).prefix(3) == [0, 2, 6])

        let sqlite = try DatabaseQueue(path: file.path)
        let before = try await compareTables(sqlite: sqlite, target: target)

        // The bytes as the fixture gave them, not only as SQLite holds them.
        let bodies = try await target.client.query(
            "SELECT id, raw_body FROM submissions WHERE id IN (\(DataDirectoryFixture.nonUTF8ID), \(DataDirectoryFixture.largeID))")
            .decode((String, ByteBuffer).self).reduce(into: [String: [UInt8]]()) { $0[$1.0] = Array($1.1.readableBytesView) }
        #expect(bodies[DataDirectoryFixture.nonUTF8ID] == DataDirectoryFixture.nonUTF8Body)
        // Compared apart from the expectation, which would print both megabytes when they differ.
        let largeBodyKept = bodies[DataDirectoryFixture.largeID] == DataDirectoryFixture.largeBody
        #expect(largeBodyKept, "the large body is \(bodies[DataDirectoryFixture.largeID]?.count ?? 0) bytes")
        let secrets = try await target.client.query("SELECT secret_ciphertext FROM webhook_endpoints")
            .decode(ByteBuffer.self).reduce(into: Set<[UInt8]>()) { $0.insert(Array($1.readableBytesView)) }
        #expect(secrets == [DataDirectoryFixture.secret + [0x99], DataDirectoryFixture.secret.reversed()])

        // Each form took its own number of the change sequence.
        let changes = try await target.client.query(
            "SELECT count(DISTINCT changed), max(changed), (SELECT last_value FROM form_changes) FROM forms")
            .decode((Int, Int, Int).self).reduce(into: []) { $0.append($1) }
        #expect(changes.first.map { $0.0 == 3 && $0.1 == $0.2 } == true, "\(changes)")

        await #expect(throws: StoreCopyError.targetNotEmpty(tables: SQLiteToPostgresCopy.tables.map(\.name))) {
            _ = try await Self.copy(of: directory.url).run(into: target)
        }
        #expect(try await compareTables(sqlite: sqlite, target: target) == before)

        // The next attempt the database numbers comes after the copied ones.
        let next = try await target.client.query("""
            INSERT INTO delivery_attempts (delivery_id, attempted_at, duration_ms)
            SELECT id, 0, 0 FROM deliveries LIMIT 1 RETURNING id
            """).decode(Int.self).reduce(into: []) { $0.append($1) }
        let copiedMaximum = try await sqlite.read { db in try Int.fetchOne(db, sql: "SELECT MAX(id) FROM delivery_attempts") }
        #expect(next == [copiedMaximum.map { $0 + 1 } ?? -1])

        // The audit chain goes on where it was: whole on PostgreSQL, and the next entry links to the last copied.
        let sqliteHead = try await AuditChain.verify(try SQLiteAuditLogFile(path: file.path))
        guard case .intact(4, let head?) = sqliteHead else { Issue.record("\(sqliteHead)"); return }
        #expect(try await AuditChain.verify(target, expectedHead: head) == sqliteHead)
        _ = try await target.saveFormVersion(
            formID: "beta", definition: "{}", title: "Beta 2", contentHash: "beta-2", createOnly: false, precondition: nil,
            audit: AuditNote(actor: "ops", action: "form.saved", route: "PUT /v1/admin/forms/{id}", target: "beta"))
        #expect(try await target.auditEntries(AuditQuery(after: 4, limit: 10)).map(\.previousHash) == [head.hash])
        guard case .intact(5, _) = try await AuditChain.verify(target, expectedHead: head) else {
            Issue.record("the chain broke after the copy"); return
        }
    }

    @Test func theCountCheckNamesATableThatLostARow() async throws {
        let directory = TemporaryDirectory()
        try await DataDirectoryFixture.make(in: directory.url)
        let target = try await PostgresFormStore(settings: try PostgresTestCluster.shared().freshDatabase())
        defer { target.close() }
        let copy = Self.copy(of: directory.url)
        _ = try await copy.run(into: target)
        try await target.client.query("DELETE FROM delivery_attempts WHERE id = (SELECT max(id) FROM delivery_attempts)")
            .reduce(into: ()) { _, _ in }
        let source = try copy.openSource()
        defer { try? source.close() }
        let attempts = DataDirectoryFixture.counts["delivery_attempts"] ?? 0
        await #expect(throws: StoreCopyError.countMismatch(table: "delivery_attempts", sqlite: attempts, postgres: attempts - 1)) {
            _ = try await copy.verifyCounts(source: source, target: target)
        }
    }

    @Test func refusesADatabaseWithAMigrationItDoesNotKnowBeforeWritingAnything() async throws {
        let directory = TemporaryDirectory()
        try await DataDirectoryFixture.make(in: directory.url)
        let file = directory.url.appendingPathComponent("formhouse.sqlite").path
        try await DatabaseQueue(path: file).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('099 a table of a later formhouse')")
        }
        let target = try await PostgresFormStore(settings: try PostgresTestCluster.shared().freshDatabase())
        defer { target.close() }
        await #expect(throws: StoreCopyError.unknownMigrations(["099 a table of a later formhouse"])) {
            _ = try await Self.copy(of: directory.url).run(into: target)
        }
        let forms = try await target.client.query("SELECT count(*) FROM forms").decode(Int.self).reduce(0, +)
        #expect(forms == 0)
    }

    @Test func refusesAMissingDatabaseFile() async throws {
        let target = try await PostgresFormStore(settings: try PostgresTestCluster.shared().freshDatabase())
        defer { target.close() }
        let missing = TemporaryDirectory().url.appendingPathComponent("formhouse.sqlite")
        await #expect(throws: StoreCopyError.noDatabase(path: missing.path)) {
            _ = try await SQLiteToPostgresCopy(databaseFile: missing).run(into: target)
        }
    }

    /// Compares every table row for row, column by column, over the columns SQLite has; the leases
    /// are the one difference, cleared by the copy. Returns the PostgreSQL rows.
    private func compareTables(sqlite: DatabaseQueue, target: PostgresFormStore) async throws -> [[[Cell]]] {
        var dumps: [[[Cell]]] = []
        for table in DataDirectoryFixture.counts.keys.sorted() {
            let columns = try TableDump.columns(of: table, in: sqlite)
            var expected = try TableDump.sqlite(table, columns: columns, in: sqlite)
            let copied = try await TableDump.postgres(table, columns: columns, on: target.client)
            #expect(expected.count == DataDirectoryFixture.counts[table], "\(table)")
            if table == "deliveries" {
                let leased = columns.indices.filter { columns[$0].hasPrefix("lease_") }
                #expect(leased.count == 2)
                #expect(expected.contains { row in leased.allSatisfy { row[$0] != .null } }, "the fixture leaves leases")
                expected = expected.map { row in
                    var row = row
                    for index in leased { row[index] = .null }
                    return row
                }
            }
            #expect(copied.count == expected.count, "\(table)")
            for (index, (copiedRow, expectedRow)) in zip(copied, expected).enumerated() where copiedRow != expectedRow {
                Issue.record("\(table) row \(index): \(copiedRow) in PostgreSQL, \(expectedRow) in SQLite")
            }
            dumps.append(copied)
        }
        return dumps
    }
}

/// The progress reports of a copy, in order.
final class Reports: Sendable {
    private let reports = Mutex<[StoreCopyProgress]>([])
    var all: [StoreCopyProgress] { reports.withLock { $0 } }
    func append(_ report: StoreCopyProgress) { reports.withLock { $0.append(report) } }
}
