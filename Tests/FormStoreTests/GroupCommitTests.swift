import Foundation
import GRDB
import Metrics
import MetricsTestKit
import StoreTestSupport
import Testing

@testable import FormStore

@Suite struct GroupCommitTests {
    @Test func fiveHundredConcurrentInsertsAreAllDurable() async throws {
        // A task-local factory, not a global bootstrap, which other test targets may own.
        let metrics = TestMetrics()
        let directory = TemporaryDirectory()
        let store = try withMetricsFactory(metrics) { try SQLiteFormStore(directory: directory.url) }
        try await makeForm(store)

        let outcomes = try await withThrowingTaskGroup(of: InsertOutcome.self) { group in
            for index in 0..<500 {
                group.addTask { try await store.insertSubmission(newSubmission(id: "sub_\(index)")) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 500)
        #expect(outcomes.allSatisfy { if case .inserted = $0 { true } else { false } })
        let statistics = store.commitStatistics
        #expect(statistics.items == 500)
        #expect(statistics.failedGroups == 0)
        #expect(statistics.largestGroup > 1, "concurrent submissions should share transactions")
        #expect(statistics.groups < 500)
        store.close()

        let reopened = try SQLiteFormStore(directory: directory.url)
        defer { reopened.close() }
        #expect(try await reopened.listForms().first?.submissionCount == 500)
        let ids = try await reopened.pool.read { db in try String.fetchAll(db, sql: "SELECT id FROM submissions") }
        #expect(Set(ids) == Set((0..<500).map { "sub_\($0)" }))

        let sizes = try metrics.expectRecorder("formhouse_store_group_size").values
        #expect(sizes.reduce(0, +) == 500)
        #expect(sizes.contains { $0 > 1 })
        #expect(try metrics.expectTimer("formhouse_store_commit_seconds").values.isEmpty == false)
    }

    @Test func submissionsQueuedWhileTheWriterIsBusyCommitTogether() async throws {
        try await withStore { store, _ in
            try await makeForm(store)
            let gate = WriterGate(store)
            let lead = Task { try await store.insertSubmission(newSubmission(id: "lead")) }
            try await eventually { store.submissionCommitter.takenCount == 1 }
            let followers = (0..<40).map { index in
                Task { try await store.insertSubmission(newSubmission(id: "follower-\(index)")) }
            }
            try await eventually { store.submissionCommitter.queuedCount == 40 }
            gate.open()
            _ = try await lead.value
            for follower in followers { _ = try await follower.value }
            #expect(store.commitStatistics.recentGroupSizes == [1, 40])
        }
    }

    @Test func groupsAreCappedByBytesAsWellAsCount() async throws {
        var configuration = SQLiteStoreConfiguration()
        configuration.maxGroupBytes = 35_000
        try await withStore(configuration) { store, _ in
            try await makeForm(store)
            let body = [UInt8](repeating: 0x61, count: 10_000)
            let gate = WriterGate(store)
            let lead = Task { try await store.insertSubmission(newSubmission(id: "lead", rawBody: body)) }
            try await eventually { store.submissionCommitter.takenCount == 1 }
            let tasks = (0..<9).map { index in
                Task { try await store.insertSubmission(newSubmission(id: "big-\(index)", rawBody: body)) }
            }
            try await eventually { store.submissionCommitter.queuedCount == 9 }
            gate.open()
            _ = try await lead.value
            for task in tasks { _ = try await task.value }
            _ = try await store.insertSubmission(newSubmission(id: "huge", rawBody: [UInt8](repeating: 0, count: 100_000)))
            #expect(store.commitStatistics.recentGroupSizes == [1, 3, 3, 3, 1])
            #expect(try await store.submission(id: "huge")?.rawBody.count == 100_000)
        }
    }

    @Test func aDuplicateKeyInTheMiddleOfAGroupFailsOnlyItself() async throws {
        try await withStore { store, _ in
            try await makeForm(store)
            #expect(try await store.insertSubmission(newSubmission(id: "original", idempotencyKey: "key-1")) == .inserted)
            let first = try #require(try await store.submission(id: "original"))

            let gate = WriterGate(store)
            let lead = Task { try await store.insertSubmission(newSubmission(id: "lead")) }
            try await eventually { store.submissionCommitter.takenCount == 2 }
            var tasks: [Task<InsertOutcome, any Error>] = []
            for index in 0..<21 {
                // Queued one by one so the group keeps this order: the repeat is at position 10.
                let submission = index == 10
                    ? newSubmission(id: "repeat", idempotencyKey: "key-1")
                    : newSubmission(id: "member-\(index)", idempotencyKey: "key-member-\(index)")
                tasks.append(Task { try await store.insertSubmission(submission) })
                try await eventually { store.submissionCommitter.queuedCount == index + 1 }
            }
            gate.open()
            _ = try await lead.value
            for (index, task) in tasks.enumerated() {
                let outcome = try await task.value
                if index == 10 {
                    #expect(outcome == .duplicate(existing: first))
                } else {
                    #expect(outcome == .inserted, "member \(index) was not inserted")
                    #expect(try await store.submission(id: "member-\(index)")?.idempotencyKey == "key-member-\(index)")
                }
            }
            #expect(store.commitStatistics.recentGroupSizes.suffix(2) == [1, 21])
            #expect(try await store.submission(id: "repeat") == nil)
            #expect(try await store.listForms().first?.submissionCount == 22)
        }
    }

    @Test func aRepeatedKeyWithinOneGroupAnswersTheFirstOfTheGroup() async throws {
        try await withStore { store, _ in
            try await makeForm(store)
            let group = [
                newSubmission(id: "a", idempotencyKey: "same"),
                newSubmission(id: "b", formID: "missing"),
                newSubmission(id: "c", idempotencyKey: "same"),
                newSubmission(id: "d", version: 9),
                newSubmission(id: "a"),
            ]
            let (results, _) = try await store.pool.writeWithoutTransaction { db in
                try SubmissionWriter.write(group, in: db, idempotencyWindow: 86_400, beforeCommit: nil)
            }
            #expect(results[0] == .success(.inserted))
            let first = try #require(try await store.submission(id: "a"))
            #expect(results[1] == .failure(.notFound("form missing has no version 1")))
            #expect(results[2] == .success(.duplicate(existing: first)))
            #expect(results[3] == .failure(.notFound("form signup has no version 9")))
            if case .failure(let error) = results[4] { #expect(error.code == "conflict") } else {
                Issue.record("a repeated id was accepted")
            }
            #expect(try await store.listForms().first?.submissionCount == 1)
        }
    }

    @Test func aFailedCommitFailsEveryWaiterOfItsGroupAndStoresNothing() async throws {
        let failing = Flag(true)
        var configuration = SQLiteStoreConfiguration()
        configuration.beforeGroupCommit = {
            if failing.isOn { throw InjectedCommitFailure() }
        }
        try await withStore(configuration) { store, _ in
            try await makeForm(store)
            _ = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://example.test/hook", secretCiphertext: [1]))
            let gate = WriterGate(store)
            let tasks = (0..<30).map { index in
                Task { try await store.insertSubmission(newSubmission(id: "doomed-\(index)")) }
            }
            try await eventually { store.submissionCommitter.queuedCount + store.submissionCommitter.takenCount == 30 }
            gate.open()
            for task in tasks {
                await #expect(throws: StoreError.self) { try await task.value }
                if case .failure(let error as StoreError) = await task.result {
                    #expect(error.code == "store_unavailable")
                }
            }
            let statistics = store.commitStatistics
            #expect(statistics.failedGroups == statistics.groups)
            #expect(statistics.largestGroup > 1)
            #expect(try await store.listForms().first?.submissionCount == 0)
            #expect(try await store.deliveryStats(now: Date()).pending == 0)

            failing.isOn = false
            let outcome = try await store.insertSubmission(newSubmission(id: "after"))
            #expect(outcome == .inserted)
            #expect(try await store.submission(id: "after") != nil)
            #expect(try await store.deliveryStats(now: Date()).pending == 1)
        }
    }

    @Test func aWriteLockHeldElsewhereFailsTheGroupAsUnavailable() async throws {
        var configuration = SQLiteStoreConfiguration()
        configuration.busyTimeout = 0.2
        try await withStore(configuration) { store, directory in
            try await makeForm(store)
            var lockConfiguration = Configuration()
            lockConfiguration.allowsUnsafeTransactions = true
            let other = try DatabaseQueue(
                path: directory.url.appendingPathComponent("formhouse.sqlite").path, configuration: lockConfiguration)
            try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }

            let tasks = (0..<10).map { index in
                Task { try await store.insertSubmission(newSubmission(id: "blocked-\(index)")) }
            }
            for task in tasks {
                if case .failure(let error as StoreError) = await task.result {
                    #expect(error.code == "store_unavailable")
                } else {
                    Issue.record("an insert succeeded while another connection held the write lock")
                }
            }
            try await other.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
            try other.close()

            _ = try await store.insertSubmission(newSubmission(id: "unblocked"))
            #expect(try await store.listForms().first?.submissionCount == 1)
        }
    }

    /// The writer binds each row's texts and blobs from one reused buffer: rows of different sizes in one
    /// group, with a failed row between them, must each come back exactly as given.
    @Test func rowsOfOneGroupKeepTheirOwnBytes() async throws {
        try await withStore { store, _ in
            try await makeForm(store)
            let long = [UInt8](repeating: UInt8(ascii: "x"), count: 9_000) + [0x00, 0xFF]
            func row(_ id: String, body: [UInt8], values: String, key: String?, address: String?) -> NewSubmission {
                NewSubmission(
                    SubmissionRecord(
                        id: id, formID: "signup", formVersion: 1, receivedAt: Date(), values: values, rawBody: body,
                        idempotencyKey: key, bodyHash: key.map { "hash-\($0)" }, clientAddress: address),
                    webhookPayload: { [] })
            }
            let group = [
                row("long", body: long, values: String(repeating: "é", count: 3_000), key: "k-long", address: "::1"),
                row("empty", body: [], values: "", key: nil, address: nil),
                row("long", body: [1, 2, 3], values: "clash", key: nil, address: nil),
                row("short", body: [0x7B, 0x7D], values: #"{"a":"ü"}"#, key: "k", address: "10.0.0.1"),
            ]
            let (results, _) = try await store.pool.writeWithoutTransaction { db in
                try SubmissionWriter.write(group, in: db, idempotencyWindow: 86_400, beforeCommit: nil)
            }
            #expect(results[0] == .success(.inserted) && results[1] == .success(.inserted) && results[3] == .success(.inserted))
            if case .failure(let error) = results[2] { #expect(error.code == "conflict") } else {
                Issue.record("a repeated id was accepted")
            }
            for (index, expected) in group.enumerated() where index != 2 {
                let stored = try #require(try await store.submission(id: expected.record.id))
                #expect(stored.rawBody == expected.record.rawBody && stored.values == expected.record.values)
                #expect(stored.idempotencyKey == expected.record.idempotencyKey && stored.bodyHash == expected.record.bodyHash)
                #expect(stored.clientAddress == expected.record.clientAddress && stored.formID == "signup")
            }
            #expect(try await store.submission(id: "long")?.rawBody.count == long.count)
        }
    }

    @Test func rawBodyIsKeptByteForByte() async throws {
        let directory = TemporaryDirectory()
        var body: [UInt8] = [0x00, 0xFF, 0xFE, 0x80, 0x0D, 0x0A, 0xC3, 0x28, 0x7B]
        var generator = SystemRandomNumberGenerator()
        body += (0..<70_000).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        do {
            let store = try SQLiteFormStore(directory: directory.url)
            defer { store.close() }
            try await makeForm(store)
            _ = try await store.insertSubmission(newSubmission(id: "binary", rawBody: body))
            _ = try await store.insertSubmission(newSubmission(id: "empty", rawBody: []))
        }
        let reopened = try SQLiteFormStore(directory: directory.url)
        defer { reopened.close() }
        #expect(try await reopened.submission(id: "binary")?.rawBody == body)
        #expect(try await reopened.submission(id: "empty")?.rawBody == [])
    }
}
