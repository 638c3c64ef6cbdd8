import FormStore
import Foundation
import StoreTestSupport
import Testing

/// What ``DraftStore`` promises, and how ``SubmissionStore/insertSubmission(_:)`` closes a draft,
/// checked on every store.
@Suite struct DraftStoreTests {
    @Test(arguments: StoreKind.allCases)
    func aDraftReadsBackAsCreated(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            var draft = newDraft(id: "drf_a", createdAt: Date(storedMilliseconds: 1_700_000_000_123))
            draft.values = #"{"name":"Zoë","tags":["a","b"]}"#
            draft.expiresAt = Date(storedMilliseconds: 1_702_592_000_789)
            try await store.createDraft(draft, uploadIDs: [], maxPerClientPerHour: 100)
            let anonymous = newDraft(id: "drf_b", clientAddress: nil)
            try await store.createDraft(anonymous, uploadIDs: [], maxPerClientPerHour: 100)
            #expect(try await store.draft(id: "drf_a") == draft)
            #expect(try await store.draft(id: "drf_b") == anonymous)
            #expect(try await store.draft(id: "drf_none") == nil)

            await #expect(throws: StoreError.conflict("draft drf_a exists")) {
                try await store.createDraft(newDraft(id: "drf_a", values: "{}"), uploadIDs: [], maxPerClientPerHour: 100)
            }
            #expect(try await store.draft(id: "drf_a") == draft)
            await #expect(throws: StoreError.notFound("form signup has no version 2")) {
                try await store.createDraft(newDraft(id: "drf_c", version: 2), uploadIDs: [], maxPerClientPerHour: 100)
            }
            await #expect(throws: StoreError.notFound("form nowhere has no version 1")) {
                try await store.createDraft(newDraft(id: "drf_d", formID: "nowhere"), uploadIDs: [], maxPerClientPerHour: 100)
            }
            #expect(try await store.draft(id: "drf_c") == nil)
            #expect(try await store.draft(id: "drf_d") == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anUpdateIsACompareAndSetOfTheRevision(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            let draft = newDraft(id: "drf_a")
            try await store.createDraft(draft, uploadIDs: [], maxPerClientPerHour: 100)
            let later = Date(storedMilliseconds: draft.createdAt.storedMilliseconds + 60_123)
            let expiry = Date(storedMilliseconds: later.storedMilliseconds + 86_400_000)
            let change = DraftChange(
                id: "drf_a", expectedRevision: 1, values: #"{"name":"Bea"}"#, uploadIDs: [], updatedAt: later, expiresAt: expiry,
                releasedUploadsExpireAt: later)
            var expected = draft
            expected.revision = 2
            expected.values = #"{"name":"Bea"}"#
            expected.updatedAt = later
            expected.expiresAt = expiry
            #expect(try await store.updateDraft(change) == .updated(expected))
            #expect(try await store.draft(id: "drf_a") == expected)

            // Another device saved revision 2 first: a change made from revision 1 is refused.
            var stale = change
            stale.values = #"{"name":"Cid"}"#
            #expect(try await store.updateDraft(stale) == .revisionMismatch(current: expected))
            stale.expectedRevision = 3
            #expect(try await store.updateDraft(stale) == .revisionMismatch(current: expected))
            #expect(try await store.draft(id: "drf_a") == expected)

            var missing = change
            missing.id = "drf_none"
            #expect(try await store.updateDraft(missing) == .notFound)

            // Submitted, it takes no more changes, even one made from its current revision.
            #expect(try await store.insertSubmission(newSubmission(id: "s1", draftID: "drf_a")) == .inserted)
            let submitted = try #require(try await store.draft(id: "drf_a"))
            #expect(submitted.submissionID == "s1")
            var fresh = change
            fresh.expectedRevision = 2
            #expect(try await store.updateDraft(fresh) == .submitted(current: submitted))
            #expect(try await store.draft(id: "drf_a") == submitted)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deletingADraftRemovesItOnce(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            try await store.createDraft(newDraft(id: "drf_open"), uploadIDs: [], maxPerClientPerHour: 100)
            try await store.createDraft(newDraft(id: "drf_done"), uploadIDs: [], maxPerClientPerHour: 100)
            try await store.createDraft(newDraft(id: "drf_kept"), uploadIDs: [], maxPerClientPerHour: 100)
            #expect(try await store.insertSubmission(newSubmission(id: "s1", draftID: "drf_done")) == .inserted)

            #expect(try await store.deleteDraft(id: "drf_open"))
            #expect(try await store.draft(id: "drf_open") == nil)
            #expect(try await !store.deleteDraft(id: "drf_open"))
            #expect(try await store.deleteDraft(id: "drf_done"), "a submitted draft was kept")
            #expect(try await store.draft(id: "drf_done") == nil)
            #expect(try await store.submission(id: "s1") != nil)
            #expect(try await !store.deleteDraft(id: "drf_none"))
            #expect(try await store.draft(id: "drf_kept") != nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func expiredDraftsAreDeletedOldestFirstUpToTheLimit(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            let base = Date(storedMilliseconds: 1_700_000_000_000)
            for (id, seconds) in [("drf_3", 3), ("drf_1", 1), ("drf_4", 4), ("drf_2", 2), ("drf_at", 10), ("drf_later", 11)] {
                try await store.createDraft(
                    newDraft(id: id, createdAt: base, lifetime: TimeInterval(seconds)), uploadIDs: [], maxPerClientPerHour: 100)
            }
            let cutoff = base.addingTimeInterval(10)
            #expect(try await store.deleteExpiredDrafts(before: cutoff, limit: 2) == 2)
            #expect(try await remaining(store) == ["drf_3", "drf_4", "drf_at", "drf_later"])
            // Strictly before: the one expiring at the cutoff stays.
            #expect(try await store.deleteExpiredDrafts(before: cutoff, limit: 10) == 2)
            #expect(try await remaining(store) == ["drf_at", "drf_later"])
            #expect(try await store.deleteExpiredDrafts(before: cutoff, limit: 10) == 0)
            #expect(try await remaining(store) == ["drf_at", "drf_later"])
        }
    }

    private func remaining(_ store: any GroupCommittingStore) async throws -> [String] {
        var ids: [String] = []
        for id in ["drf_1", "drf_2", "drf_3", "drf_4", "drf_at", "drf_later"] where try await store.draft(id: id) != nil {
            ids.append(id)
        }
        return ids
    }

    @Test(arguments: StoreKind.allCases)
    func aClientStartsAtMostTheLimitOfDraftsPerClockHour(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            let hour: Int64 = 472_222
            let start = Date(storedMilliseconds: hour * 3_600_000)
            func create(_ id: String, client: String? = "192.0.2.1", at milliseconds: Int64) async throws {
                let createdAt = Date(storedMilliseconds: start.storedMilliseconds + milliseconds)
                try await store.createDraft(
                    newDraft(id: id, clientAddress: client, createdAt: createdAt), uploadIDs: [], maxPerClientPerHour: 3)
            }
            let refusal = StoreError.limitReached("client 192.0.2.1 started 3 drafts this hour")
            try await create("drf_1", at: 0)
            try await create("drf_2", at: 1_800_000)
            try await create("drf_3", at: 3_599_999)
            await #expect(throws: refusal) { try await create("drf_4", at: 3_599_999) }
            #expect(try await store.draft(id: "drf_4") == nil)
            // A deleted draft was started all the same.
            #expect(try await store.deleteDraft(id: "drf_1"))
            await #expect(throws: refusal) { try await create("drf_5", at: 10) }
            // Another client, and drafts without a client address, are not held back.
            for index in 0..<3 { try await create("drf_other_\(index)", client: "192.0.2.2", at: 20) }
            for index in 0..<5 { try await create("drf_anonymous_\(index)", client: nil, at: 30) }
            // The next hour starts afresh.
            for index in 0..<3 { try await create("drf_next_\(index)", at: 3_600_000 + Int64(index)) }
            await #expect(throws: refusal) { try await create("drf_next_3", at: 7_199_999) }
            let started = try await store.stats(formID: "signup", from: Int(hour / 24), through: Int(hour / 24) + 1)
            #expect(started.days.map(\.draftsStarted).reduce(0, +) == 14, "a refused draft was counted as started")

            // A sweep in the hour after the next forgets the first hour's starts, not the next one's.
            let sweep = Date(storedMilliseconds: (hour + 2) * 3_600_000 + 5)
            #expect(try await store.deleteExpiredDrafts(before: sweep, limit: 10) == 0)
            try await create("drf_again", at: 100)
            await #expect(throws: refusal) { try await create("drf_next_4", at: 3_600_100) }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func concurrentStartsOfOneClientStopAtTheLimit(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            let createdAt = Date(storedMilliseconds: Date().storedMilliseconds)
            let outcomes = try await withThrowingTaskGroup(of: Result<String, StoreError>.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        do {
                            try await store.createDraft(
                                newDraft(id: "drf_\(index)", createdAt: createdAt), uploadIDs: [], maxPerClientPerHour: 5)
                            return .success("drf_\(index)")
                        } catch let error as StoreError {
                            return .failure(error)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let created = outcomes.compactMap { try? $0.get() }
            #expect(created.count == 5, "\(outcomes)")
            let refusal = StoreError.limitReached("client 192.0.2.1 started 5 drafts this hour")
            #expect(outcomes.filter { $0 == .failure(refusal) }.count == 15, "\(outcomes)")
            var stored: [String] = []
            for index in 0..<20 where try await store.draft(id: "drf_\(index)") != nil { stored.append("drf_\(index)") }
            #expect(stored.sorted() == created.sorted())
        }
    }

    // MARK: Uploads

    /// The uploads a draft names live as long as it does; deleted, it lets its unbound ones expire at
    /// once, while one bound to a submission stays as it was.
    @Test(arguments: StoreKind.allCases)
    func uploadsNamedByADraftLiveWithItAndExpireWhenItIsDeleted(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            try await makeForm(store, id: "other")
            let created = Date(storedMilliseconds: Date().storedMilliseconds)
            var longLived = newUpload(id: "upl_long")
            longLived.expiresAt = created.addingTimeInterval(90 * 86_400)
            for upload in [newUpload(id: "upl_a"), newUpload(id: "upl_b"), newUpload(id: "upl_c"), newUpload(id: "upl_bound"),
                           longLived, newUpload(id: "upl_elsewhere", formID: "other")] {
                try await store.createUpload(upload)
            }
            let before = try await store.uploads(ids: ["upl_b", "upl_c", "upl_long", "upl_elsewhere"])
            let draft = newDraft(id: "drf_a", createdAt: created)
            try await store.createDraft(
                draft, uploadIDs: ["upl_a", "upl_bound", "upl_long", "upl_elsewhere", "upl_none"], maxPerClientPerHour: 100)
            #expect(try await store.upload(id: "upl_a")?.expiresAt == draft.expiresAt)
            #expect(try await store.upload(id: "upl_bound")?.expiresAt == draft.expiresAt)
            // Kept at least as long as the draft: a later expiry stays; another form's upload is not the draft's.
            #expect(try await store.uploads(ids: ["upl_long", "upl_elsewhere"]) == Array(before[2...]))
            #expect(try await store.upload(id: "upl_b") == before[0])

            let expiry = Date(storedMilliseconds: draft.expiresAt.storedMilliseconds + 5_000)
            // Still naming the uploads it was created with, so that it keeps them.
            let change = DraftChange(
                id: "drf_a", expectedRevision: 1, values: "{}", uploadIDs: ["upl_a", "upl_bound", "upl_long", "upl_b"],
                updatedAt: created, expiresAt: expiry, releasedUploadsExpireAt: created)
            guard case .updated = try await store.updateDraft(change) else {
                Issue.record("the change was not stored")
                return
            }
            #expect(try await store.upload(id: "upl_b")?.expiresAt == expiry)
            // A stale change ties nothing.
            var stale = change
            stale.uploadIDs = ["upl_c"]
            stale.expiresAt = expiry.addingTimeInterval(60)
            let current = try #require(try await store.draft(id: "drf_a"))
            #expect(try await store.updateDraft(stale) == .revisionMismatch(current: current))
            #expect(try await store.upload(id: "upl_c") == before[1])

            #expect(try await store.insertSubmission(newSubmission(id: "s1", uploadIDs: ["upl_bound"])) == .inserted)
            let bound = try #require(try await store.upload(id: "upl_bound"))
            #expect(try await store.deleteDraft(id: "drf_a"))
            let deletedAt = Date()
            for id in ["upl_a", "upl_b", "upl_long"] {
                let upload = try #require(try await store.upload(id: id))
                #expect(upload.expiresAt <= deletedAt, "\(id) did not expire")
                #expect(upload.submissionID == nil)
            }
            #expect(try await store.upload(id: "upl_bound") == bound)
            #expect(try await store.uploads(ids: ["upl_c", "upl_elsewhere"]) == [before[1], before[3]])
            let swept = try await store.expiredUploads(before: deletedAt.addingTimeInterval(0.002), limit: 10).map(\.id)
            #expect(Set(swept) == ["upl_a", "upl_b", "upl_long"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func uploadsOfSweptDraftsExpireAndOnlyTheirs(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            for id in ["upl_old", "upl_old_bound", "upl_young"] { try await store.createUpload(newUpload(id: id)) }
            let now = Date(storedMilliseconds: Date().storedMilliseconds)
            try await store.createDraft(
                newDraft(id: "drf_old", createdAt: now.addingTimeInterval(-3600), lifetime: 60),
                uploadIDs: ["upl_old", "upl_old_bound"], maxPerClientPerHour: 100)
            try await store.createDraft(newDraft(id: "drf_young", createdAt: now), uploadIDs: ["upl_young"], maxPerClientPerHour: 100)
            #expect(try await store.insertSubmission(newSubmission(id: "s1", uploadIDs: ["upl_old_bound"])) == .inserted)
            let young = try await store.upload(id: "upl_young")
            let bound = try await store.upload(id: "upl_old_bound")

            #expect(try await store.deleteExpiredDrafts(before: now, limit: 10) == 1)
            #expect(try await store.draft(id: "drf_old") == nil)
            let old = try #require(try await store.upload(id: "upl_old"))
            #expect(old.expiresAt < now && old.submissionID == nil)
            // The upload sweep of the same pass, with the same time, takes it.
            #expect(try await store.expiredUploads(before: now, limit: 10).map(\.id) == ["upl_old"])
            #expect(try await store.upload(id: "upl_young") == young)
            #expect(try await store.upload(id: "upl_old_bound") == bound)
        }
    }

/// A change lets go of the unbound uploads its values no longer name: they expire when the change says
    /// and are no longer the draft's, so deleting the draft later leaves them be.
    @Test(arguments: StoreKind.allCases)
    func aChangeLetsGoOfTheUploadsItNoLongerNames(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            for id in ["upl_kept", "upl_dropped", "upl_bound", "upl_stale"] { try await store.createUpload(newUpload(id: id)) }
            let draft = newDraft(id: "drf_a")
            try await store.createDraft(
                draft, uploadIDs: ["upl_kept", "upl_dropped", "upl_bound", "upl_stale"], maxPerClientPerHour: 100)
            #expect(try await store.insertSubmission(newSubmission(id: "s1", uploadIDs: ["upl_bound"])) == .inserted)
            let bound = try await store.upload(id: "upl_bound")
            let later = Date(storedMilliseconds: draft.createdAt.storedMilliseconds + 60_000)
            let released = Date(storedMilliseconds: later.storedMilliseconds + 3_600_000)
            let change = DraftChange(
                id: "drf_a", expectedRevision: 1, values: "{}", uploadIDs: ["upl_kept", "upl_stale"], updatedAt: later,
                expiresAt: draft.expiresAt, releasedUploadsExpireAt: released)
            guard case .updated = try await store.updateDraft(change) else {
                Issue.record("the change was not stored")
                return
            }
            #expect(try await store.upload(id: "upl_dropped")?.expiresAt == released)
            #expect(try await store.upload(id: "upl_kept")?.expiresAt == draft.expiresAt)
            #expect(try await store.upload(id: "upl_bound") == bound)
            // A stale change lets go of nothing.
            var stale = change
            stale.uploadIDs = ["upl_kept"]
            guard case .revisionMismatch = try await store.updateDraft(stale) else {
                Issue.record("a stale change was stored")
                return
            }
            #expect(try await store.upload(id: "upl_stale")?.expiresAt == draft.expiresAt)

            #expect(try await store.deleteDraft(id: "drf_a"))
            #expect(try await store.upload(id: "upl_dropped")?.expiresAt == released, "the dropped upload was still the draft's")
            for id in ["upl_kept", "upl_stale"] {
                #expect(try await store.upload(id: id).map { $0.expiresAt <= Date() } == true, "\(id) was not the draft's")
            }
        }
    }

    /// Submitted, a draft lets go of the uploads its submission did not take: they expire at its received time.
    @Test(arguments: StoreKind.allCases)
    func aSubmissionLetsGoOfTheDraftUploadsItDoesNotBind(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            for id in ["upl_taken", "upl_left"] { try await store.createUpload(newUpload(id: id)) }
            let draft = newDraft(id: "drf_a")
            try await store.createDraft(draft, uploadIDs: ["upl_taken", "upl_left"], maxPerClientPerHour: 100)
            var submission = newSubmission(id: "s1", uploadIDs: ["upl_taken"], draftID: "drf_a")
            submission.record.receivedAt = Date(storedMilliseconds: draft.createdAt.storedMilliseconds + 90_000)
            let receivedAt = submission.record.receivedAt
            #expect(try await store.insertSubmission(submission) == .inserted)
            let taken = try #require(try await store.upload(id: "upl_taken"))
            #expect(taken.submissionID == "s1" && taken.expiresAt == draft.expiresAt)
            let left = try #require(try await store.upload(id: "upl_left"))
            #expect(left.submissionID == nil && left.expiresAt == receivedAt)
            // A second past it: a millisecond added to a Date may round back to the same stored millisecond.
            let expired = try await store.expiredUploads(before: receivedAt.addingTimeInterval(1), limit: 10)
            #expect(expired.map(\.id) == ["upl_left"])
        }
    }

    // MARK: Submitting

    /// A submission made from a revision the draft has left is refused, alone in its group; made from
    /// the draft's revision, it is stored.
    @Test(arguments: StoreKind.allCases)
    func aSubmissionFromAnOlderRevisionIsRefusedAndTheDraftStaysOpen(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            try await store.createUpload(newUpload(id: "upl_1"))
            let draft = newDraft(id: "drf_a")
            try await store.createDraft(draft, uploadIDs: ["upl_1"], maxPerClientPerHour: 100)
            let change = DraftChange(
                id: "drf_a", expectedRevision: 1, values: #"{"name":"Bea"}"#, uploadIDs: ["upl_1"], updatedAt: draft.createdAt,
                expiresAt: draft.expiresAt, releasedUploadsExpireAt: draft.createdAt)
            guard case .updated(let changed) = try await store.updateDraft(change) else {
                Issue.record("the change was not stored")
                return
            }
            var submissions = (0..<20).map { newSubmission(id: "plain-\($0)") }
            submissions.append(
                newSubmission(id: "stale", idempotencyKey: "stale", uploadIDs: ["upl_1"], draftID: "drf_a", draftRevision: 1))
            let outcomes = try await insertAtOnce(submissions, into: store)
            #expect(outcomes["stale"] == .failure(.conflict("draft drf_a changed since it was read")))
            for index in 0..<20 { #expect(outcomes["plain-\(index)"] == .success(.inserted)) }
            #expect(try await store.submission(id: "stale") == nil)
            #expect(try await store.submission(formID: "signup", idempotencyKey: "stale") == nil)
            #expect(try await store.upload(id: "upl_1")?.submissionID == nil)
            #expect(try await store.draft(id: "drf_a") == changed)
            #expect(try await store.listForms().first?.submissionCount == 20)

            let current = newSubmission(
                id: "current", idempotencyKey: "stale", uploadIDs: ["upl_1"], draftID: "drf_a", draftRevision: 2)
            #expect(try await store.insertSubmission(current) == .inserted)
            #expect(try await store.draft(id: "drf_a")?.submissionID == "current")
            #expect(try await store.upload(id: "upl_1")?.submissionID == "current")
            // Submitted, it answers with its submission whatever revision is named.
            let stored = try #require(try await store.submission(id: "current"))
            let again = newSubmission(id: "again", draftID: "drf_a", draftRevision: 1)
            #expect(try await store.insertSubmission(again) == .draftSubmitted(existing: stored))
            await #expect(throws: StoreError.notFound("draft drf_none")) {
                try await store.insertSubmission(newSubmission(id: "none", draftID: "drf_none", draftRevision: 1))
            }
        }
    }


    @Test(arguments: StoreKind.allCases)
    func aSubmissionClosesItsDraftAndASecondIsAnsweredWithTheFirst(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            try await store.createUpload(newUpload(id: "upl_1"))
            try await store.createUpload(newUpload(id: "upl_2"))
            let draft = newDraft(id: "drf_a")
            try await store.createDraft(draft, uploadIDs: ["upl_1"], maxPerClientPerHour: 100)
            let first = newSubmission(id: "s1", idempotencyKey: "k1", uploadIDs: ["upl_1"], draftID: "drf_a")
            #expect(try await store.insertSubmission(first) == .inserted)
            let stored = try #require(try await store.submission(id: "s1"))
            let closed = try #require(try await store.draft(id: "drf_a"))
            #expect(closed.submissionID == "s1")
            #expect(closed.revision == draft.revision && closed.values == draft.values)
            #expect(try await store.upload(id: "upl_1")?.submissionID == "s1")

            // Again, under another key: answered with the stored one, whatever its uploads; nothing is stored.
            for (id, uploads) in [("s2", ["upl_2"]), ("s3", ["upl_1"]), ("s4", ["upl_none"])] {
                let again = newSubmission(id: id, idempotencyKey: id, uploadIDs: uploads, draftID: "drf_a")
                #expect(try await store.insertSubmission(again) == .draftSubmitted(existing: stored), "\(id)")
                #expect(try await store.submission(id: id) == nil, "\(id) was stored")
                #expect(try await store.submission(formID: "signup", idempotencyKey: id) == nil, "\(id) kept its key")
            }
            // Under the same key: a replay of the key.
            let replay = newSubmission(id: "s5", idempotencyKey: "k1", uploadIDs: ["upl_1"], draftID: "drf_a")
            #expect(try await store.insertSubmission(replay) == .duplicate(existing: stored))
            #expect(try await store.upload(id: "upl_2")?.submissionID == nil)
            #expect(try await store.draft(id: "drf_a") == closed)
            #expect(try await store.listForms().first?.submissionCount == 1)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func concurrentSubmissionsOfOneDraftStoreExactlyOne(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            for round in 0..<4 {
                try await store.createDraft(newDraft(id: "drf_\(round)"), uploadIDs: [], maxPerClientPerHour: 100)
                let outcomes = try await insertAtOnce(
                    (0..<8).map { newSubmission(id: "s\(round)-\($0)", draftID: "drf_\(round)") }, into: store)
                let winners = outcomes.filter { $0.value == .success(.inserted) }.map(\.key)
                #expect(winners.count == 1, "round \(round): \(outcomes)")
                let winner = try #require(try await store.submission(id: winners.first ?? ""))
                let replays = outcomes.values.filter { $0 == .success(.draftSubmitted(existing: winner)) }
                #expect(replays.count == 7, "round \(round): \(outcomes)")
                #expect(try await store.draft(id: "drf_\(round)")?.submissionID == winner.id)
            }
            #expect(try await store.listForms().first?.submissionCount == 4)
        }
    }

    /// A submission of a draft refused for its uploads leaves the draft open: the next submission of it,
    /// in the same group, closes it; whichever comes first, no answer names a submission not stored.
    @Test(arguments: StoreKind.allCases)
    func aDraftSubmissionRefusedForItsUploadsLeavesTheDraftToTheNext(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            try await store.createUpload(newUpload(id: "upl_partial", complete: false))
            for index in 0..<20 { try await store.createDraft(newDraft(id: "drf_\(index)"), uploadIDs: [], maxPerClientPerHour: 100) }
            let outcomes = try await insertAtOnce((0..<20).flatMap { index in [
                newSubmission(id: "bad-\(index)", uploadIDs: ["upl_partial"], draftID: "drf_\(index)"),
                newSubmission(id: "good-\(index)", draftID: "drf_\(index)"),
            ] }, into: store)
            #expect(store.commitStatistics.largestGroup > 1, "the submissions never shared a group")
            for index in 0..<20 {
                #expect(outcomes["good-\(index)"] == .success(.inserted))
                let stored = try #require(try await store.submission(id: "good-\(index)"))
                let refused = outcomes["bad-\(index)"]
                let answers: [Result<InsertOutcome, StoreError>] = [
                    .success(.uploadsUnavailable(["upl_partial"])), .success(.draftSubmitted(existing: stored)),
                ]
                #expect(refused.map(answers.contains) == true, "\(index): \(String(describing: refused))")
                #expect(try await store.submission(id: "bad-\(index)") == nil)
                #expect(try await store.draft(id: "drf_\(index)")?.submissionID == "good-\(index)")
            }
            #expect(try await store.listForms().first?.submissionCount == 20)
        }
    }

    /// A draft that is gone fails its own submission only; the rest of its group is stored.
    @Test(arguments: StoreKind.allCases)
    func aSubmissionOfAMissingDraftFailsAloneInItsGroup(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            try await store.createUpload(newUpload(id: "upl_1"))
            for index in 0..<20 { try await store.createDraft(newDraft(id: "drf_\(index)"), uploadIDs: [], maxPerClientPerHour: 100) }
            try await store.createDraft(newDraft(id: "drf_deleted"), uploadIDs: [], maxPerClientPerHour: 100)
            #expect(try await store.deleteDraft(id: "drf_deleted"))
            var submissions = (0..<20).map { newSubmission(id: "good-\($0)", draftID: "drf_\($0)") }
            submissions += (0..<20).map { newSubmission(id: "plain-\($0)") }
            submissions.append(newSubmission(id: "lost", idempotencyKey: "lost", uploadIDs: ["upl_1"], draftID: "drf_deleted"))
            submissions.append(newSubmission(id: "never", draftID: "drf_none"))
            let outcomes = try await insertAtOnce(submissions, into: store)
            #expect(store.commitStatistics.largestGroup > 1, "the submissions never shared a group")
            #expect(outcomes["lost"] == .failure(.notFound("draft drf_deleted")))
            #expect(outcomes["never"] == .failure(.notFound("draft drf_none")))
            for id in ["lost", "never"] { #expect(try await store.submission(id: id) == nil, "\(id) was stored") }
            #expect(try await store.submission(formID: "signup", idempotencyKey: "lost") == nil)
            #expect(try await store.upload(id: "upl_1")?.submissionID == nil)
            for index in 0..<20 {
                #expect(outcomes["good-\(index)"] == .success(.inserted))
                #expect(outcomes["plain-\(index)"] == .success(.inserted))
                #expect(try await store.draft(id: "drf_\(index)")?.submissionID == "good-\(index)")
            }
            #expect(try await store.listForms().first?.submissionCount == 40)
        }
    }

    /// Sends the submissions at once, so that they share groups; their outcomes by submission id.
    private func insertAtOnce(
        _ submissions: [NewSubmission], into store: any GroupCommittingStore
    ) async throws -> [String: Result<InsertOutcome, StoreError>] {
        try await withThrowingTaskGroup(of: (String, Result<InsertOutcome, StoreError>).self) { group in
            for submission in submissions {
                let id = submission.record.id
                group.addTask {
                    do {
                        return (id, .success(try await store.insertSubmission(submission)))
                    } catch let error as StoreError {
                        return (id, .failure(error))
                    }
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
    }
}
