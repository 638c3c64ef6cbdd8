import Foundation
import GRDB
import StoreTestSupport
import Testing

@testable import FormStore

@Suite struct CrashTests {
    /// The writer executable, built beside this test bundle.
    private var writerURL: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("StoreCrashWriter")
    }

    /// Runs the writer on `directory` until it has acknowledged `acks` submissions, then kills it with
    /// SIGKILL, and returns the ids it acknowledged and how many rejections it acknowledged.
    private func writeUntilKilled(_ directory: URL, acks: Int) throws -> (submissions: Set<String>, rejections: Int) {
        let process = Process()
        process.executableURL = writerURL
        process.arguments = [directory.path, "16"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var acknowledged = Set<String>()
        var rejections = 0
        var pending = Data()
        let reader = output.fileHandleForReading
        while acknowledged.count < acks {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                if line.hasPrefix("ack ") { acknowledged.insert(String(line.dropFirst(4))) }
                if line == "rejected" { rejections += 1 }
            }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the writer stopped before it was killed")
        return (acknowledged, rejections)
    }

    /// After a clean close the database file alone holds every row: a copy of `formhouse.sqlite`
    /// (a backup taken while stopped) misses nothing that was only in the WAL.
    @Test func aCleanCloseLeavesEverythingInTheDatabaseFile() async throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteFormStore(directory: directory.url)
        try await makeForm(store)
        for index in 0..<20 { _ = try await store.insertSubmission(newSubmission(id: "sub_\(index)")) }
        store.close()
        let copy = directory.url.deletingLastPathComponent().appendingPathComponent("copy.sqlite")
        try FileManager.default.copyItem(at: directory.url.appendingPathComponent("formhouse.sqlite"), to: copy)
        let queue = try DatabaseQueue(path: copy.path)
        #expect(try await queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM submissions") } == 20)
    }

    @Test func everyAcknowledgedSubmissionSurvivesSIGKILLWithItsDelivery() async throws {
        let directory = TemporaryDirectory()
        var acknowledged = Set<String>()
        for _ in 0..<2 {
            acknowledged.formUnion(try writeUntilKilled(directory.url, acks: 400).submissions)
        }
        #expect(acknowledged.count >= 800)

        let store = try SQLiteFormStore(directory: directory.url)
        defer { store.close() }
        let (integrity, stored, orphans, deliveryCounts) = try await store.pool.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA integrity_check"),
                Set(try String.fetchAll(db, sql: "SELECT id FROM submissions")),
                try Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM deliveries d LEFT JOIN submissions s ON s.id = d.submission_id WHERE s.id IS NULL
                    """),
                Set(try Int.fetchAll(db, sql: """
                    SELECT COUNT(d.id) FROM submissions s LEFT JOIN deliveries d ON d.submission_id = s.id GROUP BY s.id
                    """))
            )
        }
        #expect(integrity == "ok")
        #expect(acknowledged.isSubset(of: stored), "\(acknowledged.subtracting(stored).count) acknowledged submissions lost")
        #expect(orphans == 0)
        #expect(deliveryCounts == [1], "each submission has exactly one delivery")
        for id in acknowledged.prefix(50) {
            #expect(try await store.submission(formID: "crash", idempotencyKey: "key-\(id)")?.id == id)
        }
    }

    /// The counters are written in the transactions of what they count, so a kill leaves them equal to
    /// the rows, day by day, and no acknowledged rejection uncounted.
    @Test func theCountersEqualTheRowsAfterSIGKILL() async throws {
        let directory = TemporaryDirectory()
        var rejections = 0
        for _ in 0..<2 {
            let written = try writeUntilKilled(directory.url, acks: 300)
            rejections += written.rejections
        }
        #expect(rejections > 0, "the writer acknowledged no rejection")

        let store = try SQLiteFormStore(directory: directory.url)
        defer { store.close() }
        let rows = try await store.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT received_at / 86400000, COUNT(*) FROM submissions GROUP BY 1 ORDER BY 1")
                .map { FormStatsDay(day: $0[0], submissions: $0[1]) }
        }
        let stats = try await store.stats(formID: "crash", from: 0, through: Date().statsDay + 1)
        #expect(stats.days.filter { $0.submissions > 0 }.map { FormStatsDay(day: $0.day, submissions: $0.submissions) } == rows)
        let rejected = stats.days.map(\.rejected).reduce(0, +)
        #expect(rejected >= rejections, "\(rejections - rejected) acknowledged rejections lost")
        // Each rejection and its failures are counted together.
        #expect(stats.rejections == ["email": ["format": rejected], "name": ["required": rejected]])
    }
}
