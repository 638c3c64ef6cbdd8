import FormStore
import Foundation
import StoreTestSupport
import Testing

/// What ``FormStatsStore`` promises, and how ``SubmissionStore/insertSubmission(_:)`` keeps a form's
/// daily counters, checked on every store.
@Suite struct FormStatsStoreTests {
    /// 2023-11-14, 00:00 UTC, and the day after.
    private static let dayA = 19_675
    private static let dayB = 19_676

    private static func at(_ day: Int, hour: Double) -> Date {
        Date(timeIntervalSince1970: Double(day) * 86_400 + hour * 3_600)
    }

    /// Records `count` rejections at once, each from its own task, so that they share groups.
    private static func recordConcurrently(
        _ count: Int, in store: any GroupCommittingStore, _ rejection: @escaping @Sendable (Int) -> Rejection
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask { try await store.recordRejection(rejection(index)) }
            }
            try await group.waitForAll()
        }
    }

    private static func failures(_ pairs: [(String, String)]) -> [FieldFailure] {
        pairs.map { FieldFailure(field: $0.0, code: $0.1) }
    }

    @Test(arguments: StoreKind.allCases)
    func countsWhatIsStoredAndRejectedPerDay(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            try await makeForm(store, id: "other")
            let (dayA, dayB) = (Self.dayA, Self.dayB)
            for hour in [0.0, 9, 23.99] {
                #expect(try await store.insertSubmission(newSubmission(receivedAt: Self.at(dayA, hour: hour))) == .inserted)
            }
            #expect(try await store.insertSubmission(
                newSubmission(id: "sub_keyed", receivedAt: Self.at(dayA, hour: 10), idempotencyKey: "k1")) == .inserted)
            // A replayed key and a submission whose upload is unknown store nothing, and count nothing.
            let keyed = try #require(try await store.submission(id: "sub_keyed"))
            #expect(try await store.insertSubmission(
                newSubmission(receivedAt: Self.at(dayA, hour: 11), idempotencyKey: "k1")) == .duplicate(existing: keyed))
            #expect(try await store.insertSubmission(
                newSubmission(receivedAt: Self.at(dayB, hour: 1), uploadIDs: ["upl_missing"])) == .uploadsUnavailable(["upl_missing"]))
            for hour in [0.0, 12] {
                #expect(try await store.insertSubmission(newSubmission(receivedAt: Self.at(dayB, hour: hour))) == .inserted)
            }
            #expect(try await store.insertSubmission(newSubmission(formID: "other", receivedAt: Self.at(dayB, hour: 2))) == .inserted)
            try await submitFromDraft(store, at: Self.at(dayB, hour: 3))

            try await store.recordRejection(Rejection(
                formID: "signup", at: Self.at(dayA, hour: 1), failures: Self.failures([("name", "required"), ("email", "format")])))
            try await store.recordRejection(Rejection(
                formID: "signup", at: Self.at(dayA, hour: 2), failures: Self.failures([("name", "required")])))
            // A pair listed twice in one rejection counts once.
            try await store.recordRejection(Rejection(
                formID: "signup", at: Self.at(dayB, hour: 5),
                failures: Self.failures([("email", "format"), ("age", "minimum"), ("email", "format")])))
            try await store.recordRejection(Rejection(formID: "other", at: Self.at(dayB, hour: 5), failures: []))

            let both = try await store.stats(formID: "signup", from: dayA, through: dayB)
            #expect(both == FormStats(
                days: [
                    FormStatsDay(day: dayA, submissions: 4, rejected: 2),
                    FormStatsDay(day: dayB, submissions: 3, rejected: 1, draftsStarted: 1, draftsSubmitted: 1),
                ],
                rejections: ["name": ["required": 2], "email": ["format": 2], "age": ["minimum": 1]]))
            // Each bound is included, and only the days in range are read, the failures too.
            #expect(try await store.stats(formID: "signup", from: dayA, through: dayA) == FormStats(
                days: [FormStatsDay(day: dayA, submissions: 4, rejected: 2)],
                rejections: ["name": ["required": 2], "email": ["format": 1]]))
            #expect(try await store.stats(formID: "signup", from: dayB, through: dayB + 30).days.map(\.day) == [dayB])
            #expect(try await store.stats(formID: "signup", from: dayA - 30, through: dayA - 1) == FormStats(days: [], rejections: [:]))
            #expect(try await store.stats(formID: "signup", from: dayB + 1, through: dayB + 30) == FormStats(days: [], rejections: [:]))
            #expect(try await store.stats(formID: "other", from: dayA, through: dayB) == FormStats(
                days: [FormStatsDay(day: dayB, submissions: 1, rejected: 1)], rejections: [:]))
        }
    }

    /// Starts a draft at `date` and submits one submission from it, the same day, as a real submit does.
    private func submitFromDraft(_ store: any GroupCommittingStore, at date: Date) async throws {
        try await store.createDraft(DraftRecord(
            id: "drf_1", formID: "signup", formVersion: 1, tokenHash: String(repeating: "0", count: 64), revision: 1,
            values: "{}", clientAddress: nil, createdAt: date, updatedAt: date, expiresAt: date.addingTimeInterval(86_400)),
            uploadIDs: [])
        var submission = newSubmission(receivedAt: date)
        submission.draftID = "drf_1"
        #expect(try await store.insertSubmission(submission) == .inserted)
    }

    /// A group holding rejections of forms that do not exist is written whole: those are skipped,
    /// the others counted.
    @Test(arguments: StoreKind.allCases)
    func rejectionsOfUnknownFormsAreSkipped(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            let at = Self.at(Self.dayA, hour: 1)
            try await Self.recordConcurrently(40, in: store) { index in
                Rejection(formID: index % 2 == 0 ? "signup" : "nobody", at: at, failures: Self.failures([("name", "required")]))
            }
            #expect(try await store.stats(formID: "signup", from: Self.dayA, through: Self.dayA) == FormStats(
                days: [FormStatsDay(day: Self.dayA, rejected: 20)], rejections: ["name": ["required": 20]]))
            #expect(try await store.stats(formID: "nobody", from: Self.dayA, through: Self.dayA) == FormStats(days: [], rejections: [:]))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func concurrentRejectionsAreAllCounted(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            let at = Self.at(Self.dayB, hour: 8)
            try await Self.recordConcurrently(200, in: store) { index in
                Rejection(formID: "signup", at: at, failures: Self.failures([("email", "format"), ("items[\(index % 4)].qty", "minimum")]))
            }
            let stats = try await store.stats(formID: "signup", from: Self.dayB, through: Self.dayB)
            #expect(stats.days == [FormStatsDay(day: Self.dayB, rejected: 200)])
            #expect(stats.rejections == [
                "email": ["format": 200], "items[0].qty": ["minimum": 50], "items[1].qty": ["minimum": 50],
                "items[2].qty": ["minimum": 50], "items[3].qty": ["minimum": 50],
            ])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aRejectionCountsAtMostAHundredFailures(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            let many = (0..<150).map { FieldFailure(field: "items[\($0)].name", code: "required") }
            try await store.recordRejection(Rejection(formID: "signup", at: Self.at(Self.dayA, hour: 3), failures: many))
            let stats = try await store.stats(formID: "signup", from: Self.dayA, through: Self.dayA)
            #expect(stats.days == [FormStatsDay(day: Self.dayA, rejected: 1)])
            #expect(stats.rejections.count == RejectionTally.maxFailuresPerRejection)
            #expect(Set(stats.rejections.keys) == Set(many.prefix(100).map(\.field)))
        }
    }
}
