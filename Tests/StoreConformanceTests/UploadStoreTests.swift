import FormStore
import Foundation
import StoreTestSupport
import Testing

/// What ``UploadStore`` promises, and how ``SubmissionStore/insertSubmission(_:)`` binds uploads,
/// checked on every store.
@Suite struct UploadStoreTests {
    @Test(arguments: StoreKind.allCases)
    func anUploadReadsBackAsCreated(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            let complete = newUpload(id: "upl_a")
            var partial = newUpload(id: "upl_b", complete: false, clientAddress: nil)
            partial.filename = nil
            partial.declaredSize = 5_000_000_000
            partial.received = 4_294_967_296
            try await store.createUpload(complete)
            try await store.createUpload(partial)
            #expect(try await store.upload(id: "upl_a") == complete)
            #expect(try await store.upload(id: "upl_b") == partial)
            #expect(try await store.upload(id: "upl_none") == nil)

            // Times are kept to the millisecond, as every stored time.
            var precise = newUpload(id: "upl_c")
            precise.createdAt = Date(timeIntervalSince1970: 1_700_000_000.1239)
            try await store.createUpload(precise)
            #expect(try await store.upload(id: "upl_c")?.createdAt.storedMilliseconds == 1_700_000_000_123)

            await #expect(throws: StoreError.conflict("upload upl_a exists")) {
                try await store.createUpload(newUpload(id: "upl_a"))
            }
            await #expect(throws: StoreError.notFound("form nowhere")) {
                try await store.createUpload(newUpload(id: "upl_d", formID: "nowhere"))
            }
            #expect(try await store.upload(id: "upl_d") == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func uploadsByIDComeInTheOrderAskedEachOnce(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            for id in ["upl_1", "upl_2", "upl_3"] { try await store.createUpload(newUpload(id: id)) }
            let found = try await store.uploads(ids: ["upl_3", "upl_none", "upl_1", "upl_3"])
            #expect(found.map(\.id) == ["upl_3", "upl_1"])
            #expect(found.first == (try await store.upload(id: "upl_3")))
            #expect(try await store.uploads(ids: []).isEmpty)
            #expect(try await store.uploads(ids: ["upl_none"]).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func progressIsACompareAndSetOfTheOffset(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            try await store.createUpload(newUpload(id: "upl_t", complete: false))
            #expect(try await store.recordProgress(id: "upl_t", from: 0, to: 1000))
            #expect(try await !store.recordProgress(id: "upl_t", from: 0, to: 500), "a stale offset was taken")
            #expect(try await store.upload(id: "upl_t")?.received == 1000)
            #expect(try await store.recordProgress(id: "upl_t", from: 1000, to: 2500))
            #expect(try await store.upload(id: "upl_t")?.received == 2500)
            #expect(try await !store.recordProgress(id: "upl_none", from: 0, to: 10))

            // Concurrent writers of one offset: exactly one moves it.
            let moved = try await withThrowingTaskGroup(of: Bool.self) { group in
                for step in 1...20 { group.addTask { try await store.recordProgress(id: "upl_t", from: 2500, to: 2500 + step) } }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(moved == 1)

            try await store.completeUpload(id: "upl_t", size: 4000, sha256: "ff", contentType: "image/png")
            #expect(try await !store.recordProgress(id: "upl_t", from: 4000, to: 4100), "a complete upload took bytes")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func completingSetsSizeHashAndType(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            let started = newUpload(id: "upl_s", complete: false)
            try await store.createUpload(started)
            try await store.completeUpload(id: "upl_s", size: 7, sha256: "0a1b", contentType: "application/pdf")
            var expected = started
            expected.isComplete = true
            expected.received = 7
            expected.declaredSize = 7
            expected.sha256 = "0a1b"
            expected.contentType = "application/pdf"
            #expect(try await store.upload(id: "upl_s") == expected)

            await #expect(throws: StoreError.conflict("upload upl_s is complete already")) {
                try await store.completeUpload(id: "upl_s", size: 8, sha256: "ffff", contentType: "image/png")
            }
            #expect(try await store.upload(id: "upl_s") == expected)
            await #expect(throws: StoreError.notFound("upload upl_none")) {
                try await store.completeUpload(id: "upl_none", size: 1, sha256: "00", contentType: "image/png")
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func onlyUnboundUploadsAreDeleted(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            try await store.createUpload(newUpload(id: "upl_free"))
            try await store.createUpload(newUpload(id: "upl_held"))
            #expect(try await store.insertSubmission(newSubmission(id: "s1", uploadIDs: ["upl_held"])) == .inserted)

            #expect(try await store.deleteUnboundUpload(id: "upl_free"))
            #expect(try await store.upload(id: "upl_free") == nil)
            #expect(try await !store.deleteUnboundUpload(id: "upl_free"))
            #expect(try await !store.deleteUnboundUpload(id: "upl_held"), "a bound upload was deleted")
            #expect(try await store.upload(id: "upl_held")?.submissionID == "s1")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func expiredUploadsAreTheUnboundOnesOldestFirst(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            let base = Date(timeIntervalSince1970: 1_700_000_000)
            for (id, offset) in [("upl_3", 3.0), ("upl_1", 1.0), ("upl_bound", 0.0), ("upl_2", 2.0), ("upl_later", 10.0)] {
                var upload = newUpload(id: id)
                upload.expiresAt = base.addingTimeInterval(offset)
                try await store.createUpload(upload)
            }
            #expect(try await store.insertSubmission(newSubmission(id: "s1", uploadIDs: ["upl_bound"])) == .inserted)

            let cutoff = base.addingTimeInterval(10)
            #expect(try await store.expiredUploads(before: cutoff, limit: 10).map(\.id) == ["upl_1", "upl_2", "upl_3"])
            #expect(try await store.expiredUploads(before: cutoff, limit: 2).map(\.id) == ["upl_1", "upl_2"])
            // Strictly before: one expiring at the cutoff is not listed yet.
            #expect(try await store.expiredUploads(before: base.addingTimeInterval(2), limit: 10).map(\.id) == ["upl_1"])
            let all = try await store.expiredUploads(before: base.addingTimeInterval(60), limit: 10)
            #expect(all.map(\.id) == ["upl_1", "upl_2", "upl_3", "upl_later"])
            #expect(all.first == (try await store.upload(id: "upl_1")))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func incompleteUploadsAreCountedInAllAndPerClient(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            let now = Date(timeIntervalSince1970: 1_700_000_000)
            let uploads = [
                newUpload(id: "upl_1", complete: false, createdAt: now, clientAddress: "192.0.2.1"),
                newUpload(id: "upl_2", complete: false, createdAt: now, clientAddress: "192.0.2.1"),
                newUpload(id: "upl_3", complete: false, createdAt: now, clientAddress: "192.0.2.2"),
                newUpload(id: "upl_4", complete: false, createdAt: now, clientAddress: nil),
                newUpload(id: "upl_old", complete: false, createdAt: now.addingTimeInterval(-7200), clientAddress: "192.0.2.1"),
                newUpload(id: "upl_done", complete: true, createdAt: now, clientAddress: "192.0.2.1"),
                newUpload(id: "upl_finished", complete: false, createdAt: now, clientAddress: "192.0.2.1"),
            ]
            for upload in uploads { try await store.createUpload(upload) }
            try await store.completeUpload(id: "upl_finished", size: 1, sha256: "00", contentType: "image/png")

            let since = now.addingTimeInterval(-3600)
            #expect(try await store.incompleteUploadCount(clientAddress: nil, since: since) == 4)
            #expect(try await store.incompleteUploadCount(clientAddress: "192.0.2.1", since: since) == 2)
            #expect(try await store.incompleteUploadCount(clientAddress: "192.0.2.2", since: since) == 1)
            #expect(try await store.incompleteUploadCount(clientAddress: "198.51.100.7", since: since) == 0)
            #expect(try await store.incompleteUploadCount(clientAddress: "192.0.2.1", since: now.addingTimeInterval(-7200)) == 3)
            #expect(try await store.incompleteUploadCount(clientAddress: nil, since: now.addingTimeInterval(1)) == 0)
        }
    }

    // MARK: Binding in the submission's transaction

    @Test(arguments: StoreKind.allCases)
    func aStoredSubmissionBindsTheUploadsItNames(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            for id in ["upl_1", "upl_2", "upl_other"] { try await store.createUpload(newUpload(id: id)) }
            // An id named twice is bound once.
            let outcome = try await store.insertSubmission(newSubmission(id: "s1", uploadIDs: ["upl_2", "upl_1", "upl_2"]))
            #expect(outcome == .inserted)
            #expect(try await store.uploads(submissionID: "s1").map(\.id) == ["upl_1", "upl_2"])
            #expect(try await store.upload(id: "upl_other")?.submissionID == nil)
            #expect(try await store.uploads(submissionID: "s_none").isEmpty)
            #expect(try await store.listForms().first?.submissionCount == 1)
        }
    }

    /// Missing, incomplete, of another form, bound already: the submission is not stored, names the
    /// ids at fault, and binds none of its uploads.
    @Test(arguments: StoreKind.allCases)
    func aSubmissionNamingAnUploadItCannotHaveIsNotStored(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            try await makeForm(store, id: "other")
            try await store.createUpload(newUpload(id: "upl_good"))
            try await store.createUpload(newUpload(id: "upl_partial", complete: false))
            try await store.createUpload(newUpload(id: "upl_elsewhere", formID: "other"))
            try await store.createUpload(newUpload(id: "upl_taken"))
            #expect(try await store.insertSubmission(newSubmission(id: "first", uploadIDs: ["upl_taken"])) == .inserted)

            let cases: [(String, [String], [String])] = [
                ("missing", ["upl_good", "upl_none"], ["upl_none"]),
                ("incomplete", ["upl_partial", "upl_good"], ["upl_partial"]),
                ("other-form", ["upl_good", "upl_elsewhere"], ["upl_elsewhere"]),
                ("bound", ["upl_taken", "upl_good"], ["upl_taken"]),
                ("all", ["upl_elsewhere", "upl_none", "upl_good", "upl_taken", "upl_partial"],
                 ["upl_elsewhere", "upl_none", "upl_taken", "upl_partial"]),
            ]
            for (id, named, faults) in cases {
                let outcome = try await store.insertSubmission(newSubmission(id: id, idempotencyKey: id, uploadIDs: named))
                #expect(outcome == .uploadsUnavailable(faults), "\(id)")
                #expect(try await store.submission(id: id) == nil, "\(id) was stored")
                #expect(try await store.submission(formID: "signup", idempotencyKey: id) == nil, "\(id) kept its key")
            }
            #expect(try await store.upload(id: "upl_good")?.submissionID == nil)
            #expect(try await store.upload(id: "upl_taken")?.submissionID == "first")
            #expect(try await store.listForms().first { $0.id == "signup" }?.submissionCount == 1)

            // The upload left unbound is still there for a submission that can have it.
            #expect(try await store.insertSubmission(newSubmission(id: "later", uploadIDs: ["upl_good"])) == .inserted)
            #expect(try await store.upload(id: "upl_good")?.submissionID == "later")
        }
    }

    /// Submissions sent at once share groups: the ones that cannot have their uploads fail alone, the
    /// others are stored with theirs, and a key whose first submission failed is free for the next.
    @Test(arguments: StoreKind.allCases)
    func aSubmissionThatCannotHaveItsUploadsFailsAloneInItsGroup(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            for index in 0..<40 { try await store.createUpload(newUpload(id: "upl_\(index)")) }
            try await store.createUpload(newUpload(id: "upl_partial", complete: false))
            var submissions = (0..<40).map { index in
                ("good-\(index)", newSubmission(id: "good-\(index)", idempotencyKey: "g\(index)", uploadIDs: ["upl_\(index)"]))
            }
            submissions += (0..<10).map { index in
                ("bad-\(index)", newSubmission(id: "bad-\(index)", idempotencyKey: "b\(index)", uploadIDs: ["upl_partial"]))
            }
            // Two submissions of one key, one of them naming an upload it cannot have: whichever comes
            // first, no answer may replay a submission that was not stored.
            submissions += (0..<10).flatMap { index in [
                ("pair-bad-\(index)", newSubmission(id: "pair-bad-\(index)", idempotencyKey: "p\(index)", uploadIDs: ["upl_partial"])),
                ("pair-good-\(index)", newSubmission(id: "pair-good-\(index)", idempotencyKey: "p\(index)")),
            ] }
            let outcomes = try await withThrowingTaskGroup(of: (String, InsertOutcome).self) { group in
                for (name, submission) in submissions {
                    group.addTask { (name, try await store.insertSubmission(submission)) }
                }
                return try await group.reduce(into: [String: InsertOutcome]()) { $0[$1.0] = $1.1 }
            }
            #expect(store.commitStatistics.largestGroup > 1, "the submissions never shared a group")
            for index in 0..<40 {
                #expect(outcomes["good-\(index)"] == .inserted)
                #expect(try await store.upload(id: "upl_\(index)")?.submissionID == "good-\(index)")
            }
            for index in 0..<10 {
                #expect(outcomes["bad-\(index)"] == .uploadsUnavailable(["upl_partial"]))
                #expect(try await store.submission(id: "bad-\(index)") == nil)
                let pair = (outcomes["pair-bad-\(index)"], outcomes["pair-good-\(index)"])
                let stored = try #require(try await store.submission(formID: "signup", idempotencyKey: "p\(index)"))
                #expect(stored.id == "pair-good-\(index)")
                switch pair {
                case (.uploadsUnavailable(["upl_partial"])?, .inserted?): break
                case (.duplicate(let existing)?, .inserted?): #expect(existing == stored)
                default: Issue.record("pair \(index): \(String(describing: pair))")
                }
                #expect(try await store.submission(id: "pair-bad-\(index)") == nil)
            }
            #expect(try await store.upload(id: "upl_partial")?.submissionID == nil)
            #expect(try await store.listForms().first { $0.id == "signup" }?.submissionCount == 50)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func concurrentSubmissionsNamingOneUploadStoreExactlyOne(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            for round in 0..<5 {
                try await store.createUpload(newUpload(id: "upl_\(round)"))
                let outcomes = try await withThrowingTaskGroup(of: (String, InsertOutcome).self) { group in
                    for index in 0..<12 {
                        let id = "s\(round)-\(index)"
                        group.addTask { (id, try await store.insertSubmission(newSubmission(id: id, uploadIDs: ["upl_\(round)"]))) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let winners = outcomes.filter { $0.1 == .inserted }.map(\.0)
                #expect(winners.count == 1, "round \(round): \(winners)")
                #expect(outcomes.filter { $0.1 == .uploadsUnavailable(["upl_\(round)"]) }.count == 11)
                #expect(try await store.upload(id: "upl_\(round)")?.submissionID == winners.first)
            }
            #expect(try await store.listForms().first?.submissionCount == 5)
        }
    }

    /// A replay is answered from the stored submission; the uploads it names are not looked at, and
    /// none of them is bound to anything by it.
    @Test(arguments: StoreKind.allCases)
    func aReplayedKeyAnswersTheStoredSubmissionWithoutTouchingUploads(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            try await store.createUpload(newUpload(id: "upl_first"))
            try await store.createUpload(newUpload(id: "upl_fresh"))
            #expect(try await store.insertSubmission(
                newSubmission(id: "s1", idempotencyKey: "k", uploadIDs: ["upl_first"])) == .inserted)
            let stored = try #require(try await store.submission(id: "s1"))

            for (id, named) in [("s2", ["upl_first"]), ("s3", ["upl_fresh"]), ("s4", ["upl_none"])] {
                let again = try await store.insertSubmission(newSubmission(id: id, idempotencyKey: "k", uploadIDs: named))
                #expect(again == .duplicate(existing: stored), "\(id)")
            }
            #expect(try await store.upload(id: "upl_first")?.submissionID == "s1")
            #expect(try await store.upload(id: "upl_fresh")?.submissionID == nil)
            #expect(try await store.uploads(submissionID: "s1").map(\.id) == ["upl_first"])
        }
    }
}
