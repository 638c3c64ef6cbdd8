import Foundation
import Synchronization
import Testing

@testable import FormStore

@Suite struct SubmissionReadTests {
    /// 250 submissions over 50 distinct milliseconds, so ties on received time are the common case.
    private func fill(_ store: SQLiteFormStore) async throws -> [String] {
        try await makeForm(store)
        try await makeForm(store, id: "other")
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        var ids: [String] = []
        for index in 0..<250 {
            let id = "sub_\(String(format: "%03d", (index * 37) % 250))"
            ids.append(id)
            _ = try await store.insertSubmission(
                newSubmission(id: id, receivedAt: base.addingTimeInterval(Double(index % 50) / 1000)))
        }
        _ = try await store.insertSubmission(newSubmission(id: "elsewhere", formID: "other"))
        return ids
    }

    @Test func cursorPagingVisitsEveryRowOnceNewestFirst() async throws {
        try await withStore { store, _ in
            let ids = try await fill(store)
            var seen: [SubmissionRecord] = []
            var cursor: SubmissionCursor?
            var pages = 0
            repeat {
                let page = try await store.submissions(formID: "signup", after: cursor, limit: 7)
                #expect(page.items.count <= 7)
                seen += page.items
                // The cursor travels as its opaque token, as it would through the API.
                cursor = try page.nextCursor.map { try #require(SubmissionCursor(token: $0.token)) }
                pages += 1
            } while cursor != nil && pages < 100
            #expect(pages == 36)
            #expect(seen.count == 250)
            #expect(Set(seen.map(\.id)) == Set(ids))
            let keys = seen.map { ($0.receivedAt.storedMilliseconds, $0.id) }
            #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 > $1 })
        }
    }

    @Test func aFullLastPageHasNoNextCursor() async throws {
        try await withStore { store, _ in
            _ = try await fill(store)
            let page = try await store.submissions(formID: "signup", after: nil, limit: 250)
            #expect(page.items.count == 250)
            #expect(page.nextCursor == nil)
            #expect(try await store.submissions(formID: "nothing", after: nil, limit: 10).items.isEmpty)
        }
    }

    /// A page is answered whole, so large submissions end it early (with a cursor) once its values
    /// reach the budget; a page never reads raw bodies, which it does not show.
    @Test func pagesAreBoundedByBytes() async throws {
        try await withStore { store, _ in
            try await makeForm(store)
            let big = #"{"name":""# + String(repeating: "x", count: 1_500_000) + #""}"#
            let base = Date(timeIntervalSince1970: 1_700_000_000)
            for index in 0..<5 {
                _ = try await store.insertSubmission(newSubmission(
                    id: "sub_\(index)", receivedAt: base.addingTimeInterval(Double(index)), rawBody: Array(big.utf8), values: big))
            }
            // 1.5 MB each against 4 MiB: the third row passes the budget and ends the page.
            let first = try await store.submissions(formID: "signup", after: nil, limit: 50)
            #expect(first.items.map(\.id) == ["sub_4", "sub_3", "sub_2"])
            #expect(first.items.allSatisfy { $0.rawBody.isEmpty && $0.values == big })
            let next = try #require(first.nextCursor)
            let second = try await store.submissions(formID: "signup", after: next, limit: 50)
            #expect(second.items.map(\.id) == ["sub_1", "sub_0"])
            #expect(second.nextCursor == nil)
            // A page that the budget ends at the form's last row says there is no more.
            let last3 = try #require(first.items.last)
            let exact = try await store.submissions(formID: "signup", after: SubmissionCursor(
                receivedAtMilliseconds: last3.receivedAt.storedMilliseconds + 1, id: last3.id), limit: 50)
            #expect(exact.items.map(\.id) == ["sub_2", "sub_1", "sub_0"] && exact.nextCursor == nil)
        }
    }

    @Test func cursorTokensRoundTripAndForgeriesAreRefused() {
        let cursor = SubmissionCursor(receivedAtMilliseconds: 1_700_000_000_123, id: "sub_Zz9")
        #expect(SubmissionCursor(token: cursor.token) == cursor)
        #expect(!cursor.token.contains("=") && !cursor.token.contains("+") && !cursor.token.contains("/"))
        for forged in ["", "!!!", "bm9jb2xvbg", "MTIzOg", "YWJjOmlk"] {
            #expect(SubmissionCursor(token: forged) == nil, "\(forged)")
        }
    }

    @Test func exportStreamsEveryRowOldestFirstInBatches() async throws {
        try await withStore { store, _ in
            let ids = try await fill(store)
            let batches = Mutex<[[SubmissionRecord]]>([])
            try await store.forEachSubmission(formID: "signup", batchSize: 40, maxBatchBytes: 1 << 20) { batch in
                batches.withLock { $0.append(batch) }
            }
            let all = batches.withLock { $0 }
            #expect(all.map(\.count) == [40, 40, 40, 40, 40, 40, 10])
            let rows = all.flatMap { $0 }
            #expect(Set(rows.map(\.id)) == Set(ids) && rows.count == 250)
            let keys = rows.map { ($0.receivedAt.storedMilliseconds, $0.id) }
            #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 })
            // The export never reads the raw bodies (as large as the values).
            #expect(rows.allSatisfy { $0.rawBody.isEmpty && !$0.values.isEmpty })
        }
    }

    /// Large submissions make small batches: the byte budget ends a batch before its row count does,
    /// and a row larger than the whole budget still comes, alone.
    @Test func exportBatchesAreBoundedByBytes() async throws {
        try await withStore { store, _ in
            _ = try await fill(store)
            let one = try #require(try await store.submissions(formID: "signup", after: nil, limit: 1).items.first)
            let rowBytes = one.values.utf8.count
            let sizes = Mutex<[Int]>([])
            try await store.forEachSubmission(formID: "signup", batchSize: 100, maxBatchBytes: rowBytes * 30) { batch in
                sizes.withLock { $0.append(batch.count) }
            }
            let counts = sizes.withLock { $0 }
            #expect(counts.reduce(0, +) == 250)
            #expect(counts.dropLast().allSatisfy { $0 <= 30 } && counts.count >= 9)
            sizes.withLock { $0.removeAll() }
            try await store.forEachSubmission(formID: "signup", batchSize: 100, maxBatchBytes: 1) { batch in
                sizes.withLock { $0.append(batch.count) }
            }
            #expect(sizes.withLock { $0 }.allSatisfy { $0 == 1 } && sizes.withLock { $0 }.count == 250)
        }
    }

    @Test func exportStopsWhenTheConsumerThrows() async throws {
        struct Stop: Error {}
        try await withStore { store, _ in
            _ = try await fill(store)
            let calls = Mutex(0)
            await #expect(throws: Stop.self) {
                try await store.forEachSubmission(formID: "signup", batchSize: 100, maxBatchBytes: 1 << 20) { _ in
                    calls.withLock { $0 += 1 }
                    throw Stop()
                }
            }
            #expect(calls.withLock { $0 } == 1)
        }
    }

    @Test func storedRowMirrorsTheNewSubmission() async throws {
        // A window reaching back to the fixed date, so the lookup by key finds the row.
        try await withStore(SQLiteStoreConfiguration(idempotencyWindow: 100 * 365 * 86_400)) { store, _ in
            try await makeForm(store)
            let new = newSubmission(id: "s1", receivedAt: Date(timeIntervalSince1970: 1_700_000_000.1239), idempotencyKey: "k")
            #expect(try await store.insertSubmission(new) == .inserted)
            let stored = try #require(try await store.submission(id: "s1"))
            #expect(stored.id == "s1" && stored.formID == "signup" && stored.formVersion == new.record.formVersion)
            #expect(stored.receivedAt.storedMilliseconds == 1_700_000_000_123)
            #expect(stored.values == new.record.values && stored.rawBody == new.record.rawBody)
            #expect(stored.idempotencyKey == "k" && stored.bodyHash == "hash-k" && stored.clientAddress == "127.0.0.1")
            #expect(try await store.submission(formID: "signup", idempotencyKey: "k") == stored)
            #expect(try await store.submission(formID: "other", idempotencyKey: "k") == nil)

            let again = try await store.insertSubmission(
                newSubmission(id: "s2", receivedAt: Date(timeIntervalSince1970: 1_700_000_060), idempotencyKey: "k"))
            #expect(again == .duplicate(existing: stored))
        }
    }

    @Test func aKeyRepeatedAfterItsWindowStoresANewSubmission() async throws {
        try await withStore(SQLiteStoreConfiguration(idempotencyWindow: 3600)) { store, _ in
            try await makeForm(store)
            let start = Date().addingTimeInterval(-3_611)
            _ = try await store.insertSubmission(newSubmission(id: "old", receivedAt: start, idempotencyKey: "k"))
            // Looked up now, past its window, the old row has given the key up.
            #expect(try await store.submission(formID: "signup", idempotencyKey: "k") == nil)
            let within = try await store.insertSubmission(
                newSubmission(id: "within", receivedAt: start.addingTimeInterval(3599), idempotencyKey: "k"))
            if case .duplicate(let existing) = within { #expect(existing.id == "old") } else {
                Issue.record("a key inside its window stored a new submission")
            }
            let after = try await store.insertSubmission(
                newSubmission(id: "new", receivedAt: start.addingTimeInterval(3601), idempotencyKey: "k"))
            #expect(after == .inserted, "a key after its window was answered as a duplicate")
            #expect(try await store.submission(formID: "signup", idempotencyKey: "k")?.id == "new")
            #expect(try await store.submission(id: "old")?.idempotencyKey == nil)
            #expect(try await store.listForms().first?.submissionCount == 2)
        }
    }
}
