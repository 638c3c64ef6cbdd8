import FormStore
import Foundation
import StoreTestSupport
import Synchronization
import Testing

/// What ``SubmissionStore`` promises, checked on every store.
@Suite struct SubmissionStoreTests {
    /// 250 submissions over 50 distinct milliseconds, so ties on received time are the common case.
    private func fill(_ store: any GroupCommittingStore) async throws -> [String] {
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

    @Test(arguments: StoreKind.allCases)
    func cursorPagingVisitsEveryRowOnceNewestFirst(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
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

    @Test(arguments: StoreKind.allCases)
    func aFullLastPageHasNoNextCursor(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            _ = try await fill(store)
            let page = try await store.submissions(formID: "signup", after: nil, limit: 250)
            #expect(page.items.count == 250)
            #expect(page.nextCursor == nil)
            #expect(try await store.submissions(formID: "nothing", after: nil, limit: 10).items.isEmpty)
        }
    }

    /// A page is answered whole, so large submissions end it early (with a cursor) once its values
    /// reach the budget; a page never reads raw bodies, which it does not show.
    @Test(arguments: StoreKind.allCases)
    func pagesAreBoundedByBytes(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
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

    @Test(arguments: StoreKind.allCases)
    func exportStreamsEveryRowOldestFirstInBatches(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
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
    @Test(arguments: StoreKind.allCases)
    func exportBatchesAreBoundedByBytes(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
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

    @Test(arguments: StoreKind.allCases)
    func exportStopsWhenTheConsumerThrows(_ kind: StoreKind) async throws {
        struct Stop: Error {}
        try await kind.withSubmissionStore { store in
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

    @Test(arguments: StoreKind.allCases)
    func storedRowMirrorsTheNewSubmission(_ kind: StoreKind) async throws {
        // A window reaching back to the fixed date, so the lookup by key finds the row.
        try await kind.withSubmissionStore(idempotencyWindow: 100 * 365 * 86_400) { store in
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

    @Test(arguments: StoreKind.allCases)
    func aKeyRepeatedAfterItsWindowStoresANewSubmission(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore(idempotencyWindow: 3600) { store in
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

    @Test(arguments: StoreKind.allCases)
    func concurrentSubmissionsShareGroupCommits(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            let outcomes = try await withThrowingTaskGroup(of: InsertOutcome.self) { group in
                for index in 0..<300 {
                    group.addTask { try await store.insertSubmission(newSubmission(id: "sub_\(index)")) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.count == 300 && outcomes.allSatisfy { $0 == .inserted })
            let statistics = store.commitStatistics
            #expect(statistics.items == 300 && statistics.failedGroups == 0)
            #expect(statistics.largestGroup > 1, "concurrent submissions should share transactions")
            #expect(statistics.groups < 300)
            #expect(try await store.listForms().first?.submissionCount == 300)
            let page = try await store.submissions(formID: "signup", after: nil, limit: 1000)
            #expect(Set(page.items.map(\.id)) == Set((0..<300).map { "sub_\($0)" }))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func concurrentRepeatsOfAKeyStoreExactlyOneSubmission(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            let outcomes = try await withThrowingTaskGroup(of: (String, String, InsertOutcome).self) { group in
                for index in 0..<200 {
                    let key = "key-\(index % 50)"
                    group.addTask { (key, "s\(index)", try await store.insertSubmission(newSubmission(id: "s\(index)", idempotencyKey: key))) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            var inserted: [String: String] = [:]
            for case let (key, id, .inserted) in outcomes {
                #expect(inserted[key] == nil, "two submissions stored for \(key)")
                inserted[key] = id
            }
            #expect(inserted.count == 50)
            for case let (key, _, .duplicate(existing)) in outcomes {
                #expect(existing.id == inserted[key])
            }
            #expect(try await store.listForms().first?.submissionCount == 50)
            #expect(store.commitStatistics.largestGroup > 1)
        }
    }

    /// A repeated key, an unknown form or version and a repeated id each fail alone, among
    /// submissions sent at the same time that are stored.
    @Test(arguments: StoreKind.allCases)
    func aClashingSubmissionFailsAloneAmongOthersThatAreStored(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            #expect(try await store.insertSubmission(newSubmission(id: "original", idempotencyKey: "key-1")) == .inserted)
            let first = try #require(try await store.submission(id: "original"))
            let submissions = [
                ("repeat", newSubmission(id: "repeat", idempotencyKey: "key-1")),
                ("unknown-form", newSubmission(id: "unknown-form", formID: "missing")),
                ("unknown-version", newSubmission(id: "unknown-version", version: 9)),
                ("id-again", newSubmission(id: "original")),
            ] + (0..<20).map { ("member-\($0)", newSubmission(id: "member-\($0)", idempotencyKey: "k\($0)")) }
            let results = await withTaskGroup(of: (String, Result<InsertOutcome, StoreError>).self) { group in
                for (name, submission) in submissions {
                    group.addTask {
                        do { return (name, .success(try await store.insertSubmission(submission))) } catch {
                            return (name, .failure(error as? StoreError ?? .unavailable("\(error)")))
                        }
                    }
                }
                return await group.reduce(into: [String: Result<InsertOutcome, StoreError>]()) { $0[$1.0] = $1.1 }
            }
            #expect(results["repeat"] == .success(.duplicate(existing: first)))
            #expect(results["unknown-form"] == .failure(.notFound("form missing has no version 1")))
            #expect(results["unknown-version"] == .failure(.notFound("form signup has no version 9")))
            if case .failure(let error) = results["id-again"] { #expect(error.code == "conflict") } else {
                Issue.record("a repeated id was accepted")
            }
            for index in 0..<20 {
                #expect(results["member-\(index)"] == .success(.inserted))
                #expect(try await store.submission(id: "member-\(index)")?.idempotencyKey == "k\(index)")
            }
            #expect(try await store.submission(id: "repeat") == nil)
            #expect(try await store.submission(id: "unknown-version") == nil)
            #expect(try await store.listForms().first?.submissionCount == 21)
        }
    }

    /// Rows keep their own bytes and their missing fields, whatever their sizes.
    @Test(arguments: StoreKind.allCases)
    func storedRowsKeepTheirBytesAndMissingFields(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            var generator = SystemRandomNumberGenerator()
            let binary: [UInt8] = [0x00, 0xFF, 0xFE, 0x80, 0x0D, 0x0A, 0xC3, 0x28]
                + (0..<70_000).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            func row(_ id: String, body: [UInt8], values: String, key: String?, address: String?) -> NewSubmission {
                NewSubmission(
                    SubmissionRecord(
                        id: id, formID: "signup", formVersion: 1, receivedAt: Date(), values: values, rawBody: body,
                        idempotencyKey: key, bodyHash: key.map { "hash-\($0)" }, clientAddress: address),
                    webhookPayload: { [] })
            }
            let rows = [
                row("binary", body: binary, values: String(repeating: "é", count: 3_000), key: "k-long", address: "::1"),
                row("empty", body: [], values: "", key: nil, address: nil),
                row("short", body: [0x7B, 0x7D], values: #"{"a":"ü"}"#, key: "k", address: "10.0.0.1"),
            ]
            try await withThrowingTaskGroup(of: InsertOutcome.self) { group in
                for submission in rows { group.addTask { try await store.insertSubmission(submission) } }
                for try await outcome in group { #expect(outcome == .inserted) }
            }
            for expected in rows {
                let stored = try #require(try await store.submission(id: expected.record.id))
                #expect(stored.rawBody == expected.record.rawBody && stored.values == expected.record.values)
                #expect(stored.idempotencyKey == expected.record.idempotencyKey && stored.bodyHash == expected.record.bodyHash)
                #expect(stored.clientAddress == expected.record.clientAddress && stored.formID == "signup")
            }
        }
    }
}
