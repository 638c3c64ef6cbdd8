import FormStore
import Foundation
import StoreTestSupport
import Testing

/// What ``RetentionStore`` promises, on every store: exactly the old submissions go, in bounded
/// batches, with what refers to them; their files are left for the upload sweeper.
@Suite struct RetentionStoreTests {
    private let secret: [UInt8] = [1, 2, 3, 4]
    static let day: TimeInterval = 86_400
    /// A whole second, so that times read back equal.
    static let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))

    @Test(arguments: StoreKind.allCases)
    func theFormsHoldingSubmissionsIncludeDeletedOnes(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            for id in ["a", "b", "c"] { try await makeForm(store, id: id) }
            _ = try await store.saveFormVersion(formID: "b", definition: "{}", title: "B", contentHash: "b-2")
            for id in ["b", "c"] { #expect(try await store.insertSubmission(newSubmission(formID: id)) == .inserted) }
            #expect(try await store.deleteForm(id: "b"))
            let forms = try await store.formsHoldingSubmissions()
            #expect(forms.map(\.id) == ["b", "c"])
            #expect(forms.map(\.currentVersion) == [2, 1])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func exactlyTheOldSubmissionsGoWithWhatRefersToThem(_ kind: StoreKind) async throws {
        try await kind.withSubmissionStore { store in
            try await makeForm(store)
            try await makeForm(store, id: "other")
            let endpoint = try await store.createEndpoint(NewEndpoint(formID: "signup", url: "https://a.test/", secretCiphertext: secret))
            // Five old submissions, from 40 to 36 days ago, each with a file; two recent ones; one old of another form.
            var oldUploads: [String] = []
            for age in 36...40 {
                let upload = newUpload(formID: "signup")
                try await store.createUpload(upload)
                oldUploads.append(upload.id)
                #expect(try await store.insertSubmission(newSubmission(
                    id: "sub_old\(age)", receivedAt: Self.now.addingTimeInterval(-Double(age) * Self.day), uploadIDs: [upload.id])) == .inserted)
            }
            for age in [1, 29] {
                #expect(try await store.insertSubmission(
                    newSubmission(id: "sub_new\(age)", receivedAt: Self.now.addingTimeInterval(-Double(age) * Self.day))) == .inserted)
            }
            #expect(try await store.insertSubmission(
                newSubmission(id: "sub_other", formID: "other", receivedAt: Self.now.addingTimeInterval(-50 * Self.day))) == .inserted)
            // A draft closed by an old submission, and an attempt on an old delivery.
            var submission = newSubmission(id: "sub_old35", receivedAt: Self.now.addingTimeInterval(-35 * Self.day))
            try await store.createDraft(newDraft(id: "drf_old"), uploadIDs: [], maxPerClientPerHour: 100)
            submission.draftID = "drf_old"
            #expect(try await store.insertSubmission(submission) == .inserted)
            let claimed = try await store.claimDueDeliveries(owner: "w", limit: 100, now: Date().addingTimeInterval(1), lease: 30)
            let oldDelivery = try #require(claimed.first { $0.submissionID == "sub_old40" })
            try await store.recordAttempt(
                deliveryID: oldDelivery.id, owner: "w",
                attempt: AttemptRecord(attemptedAt: Date(), statusCode: 500, durationMilliseconds: 3, error: nil, responseExcerpt: "no"),
                outcome: .retry(at: Date().addingTimeInterval(60)))
            let statsBefore = try await store.stats(formID: "signup", from: Self.now.statsDay - 60, through: Self.now.statsDay)

            // Thirty days: six old ones go, in batches of four, oldest first.
            let cutoff = Self.now.addingTimeInterval(-30 * Self.day)
            let first = try await store.deleteSubmissions(formID: "signup", receivedBefore: cutoff, limit: 4)
            #expect(first == DeletedSubmissions(submissions: 4, deliveries: 4, attempts: 1, files: 4))
            #expect(try await store.submission(id: "sub_old40") == nil)
            #expect(try await store.submission(id: "sub_old36") != nil, "the newest of the old ones waits for the next batch")
            let second = try await store.deleteSubmissions(formID: "signup", receivedBefore: cutoff, limit: 4)
            #expect(second == DeletedSubmissions(submissions: 2, deliveries: 2, attempts: 0, files: 1))
            #expect(try await store.deleteSubmissions(formID: "signup", receivedBefore: cutoff, limit: 4) == DeletedSubmissions())

            for id in ["sub_old35", "sub_old36", "sub_old37", "sub_old38", "sub_old39", "sub_old40"] {
                #expect(try await store.submission(id: id) == nil, "\(id)")
            }
            for id in ["sub_new1", "sub_new29", "sub_other"] { #expect(try await store.submission(id: id) != nil, "\(id)") }
            #expect(try await store.draft(id: "drf_old") == nil)
            let deliveries = try await store.deliveries(status: nil, formID: "signup", limit: 100, cursor: nil).items
            #expect(Set(deliveries.map(\.submissionID)) == ["sub_new1", "sub_new29"])
            #expect(deliveries.allSatisfy { $0.endpointID == endpoint.id })
            // The files are unbound and expired, for the upload sweeper; the counters keep the history.
            let expired = try await store.expiredUploads(before: Date(), limit: 100)
            #expect(Set(expired.map(\.id)) == Set(oldUploads))
            #expect(try await store.stats(formID: "signup", from: Self.now.statsDay - 60, through: Self.now.statsDay) == statsBefore)
            #expect(try await store.listForms().first { $0.id == "signup" }?.submissionCount == 2)
        }
    }
}
