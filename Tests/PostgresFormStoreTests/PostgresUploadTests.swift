import FormStore
import Foundation
import StoreTestSupport
import Testing

@testable import PostgresFormStore

/// Binding uploads on a database that several nodes share, and the order within one group, which the
/// PostgreSQL writer handles in sets rather than row by row.
@Suite struct PostgresUploadTests {
    /// The second node's submission waits for the first node's open transaction, which holds the
    /// upload, and finds it bound once that transaction commits.
    @Test func anUploadBeingBoundOnOneNodeIsUnavailableOnAnotherOnceItCommits() async throws {
        let holding = Gate()
        try await withTwoNodes(firstHeldAt: holding) { first, second in
            try await first.createUpload(newUpload(id: "upl_1"))
            let held = Task { try await first.insertSubmission(newSubmission(id: "from-first", uploadIDs: ["upl_1"])) }
            try await holding.waitUntilSomeoneWaits()
            let waiting = Task { try await second.insertSubmission(newSubmission(id: "from-second", uploadIDs: ["upl_1"])) }
            try await Task.sleep(for: .milliseconds(500))
            #expect(second.commitStatistics.groups == 0, "the second node did not wait for the upload")
            holding.open()
            #expect(try await held.value == .inserted)
            #expect(try await waiting.value == .uploadsUnavailable(["upl_1"]))
            #expect(try await second.upload(id: "upl_1")?.submissionID == "from-first")
            #expect(try await second.submission(id: "from-second") == nil)
            #expect(try await second.listForms().first?.submissionCount == 1)
        }
    }

    @Test func twoNodesRacingForTheSameUploadsBindEachOnce() async throws {
        let settings = try PostgresTestCluster.shared().freshDatabase()
        let nodes = [try await PostgresFormStore(settings: settings), try await PostgresFormStore(settings: settings)]
        defer { nodes.forEach { $0.close() } }
        try await makeForm(nodes[0])
        for index in 0..<10 { try await nodes[0].createUpload(newUpload(id: "upl_\(index)")) }
        let outcomes = try await withThrowingTaskGroup(of: (String, String, InsertOutcome).self) { group in
            for index in 0..<200 {
                let node = nodes[index % 2]
                // Each submission names two neighbouring uploads, in either order, so that groups on
                // both nodes want the same rows in different orders.
                let pair = index % 4 < 2 ? ["upl_\(index % 10)", "upl_\((index + 1) % 10)"]
                    : ["upl_\((index + 1) % 10)", "upl_\(index % 10)"]
                group.addTask {
                    ("s\(index)", pair[0], try await node.insertSubmission(newSubmission(id: "s\(index)", uploadIDs: pair)))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let winners = outcomes.filter { $0.2 == .inserted }.map(\.0)
        let refused = outcomes.filter { if case .uploadsUnavailable = $0.2 { true } else { false } }
        #expect(winners.count + refused.count == 200)
        var owners: [String: String] = [:]
        for upload in try await nodes[1].uploads(ids: (0..<10).map { "upl_\($0)" }) {
            if let owner = upload.submissionID { owners[upload.id] = owner }
        }
        // Every winner holds both of its uploads, and no upload has two owners.
        #expect(Set(owners.values) == Set(winners))
        #expect(owners.count == 2 * winners.count)
        #expect(try await nodes[0].listForms().first?.submissionCount == winners.count)
    }

    /// Within one group the first submission of a key is refused for its uploads: the next one of that
    /// key is stored, not answered as a replay of a submission that was never stored.
    @Test func aKeyFreedByARefusedSubmissionGoesToTheNextOfItsGroup() async throws {
        let holding = Gate()
        var configuration = PostgresStoreConfiguration()
        configuration.beforeGroupCommit = { _ in await holding.pass() }
        let store = try await PostgresFormStore(
            settings: try PostgresTestCluster.shared().freshDatabase(), configuration: configuration)
        defer { store.close() }
        try await makeForm(store)
        try await store.createUpload(newUpload(id: "upl_partial", complete: false))
        try await store.createUpload(newUpload(id: "upl_good"))

        let blocker = Task { try await store.insertSubmission(newSubmission(id: "blocker")) }
        try await holding.waitUntilSomeoneWaits()
        var queued: [Task<InsertOutcome, any Error>] = []
        let group = [
            newSubmission(id: "refused", idempotencyKey: "k", uploadIDs: ["upl_partial"]),
            newSubmission(id: "refused-again", idempotencyKey: "k", uploadIDs: ["upl_partial"]),
            newSubmission(id: "next", idempotencyKey: "k", uploadIDs: ["upl_good"]),
            newSubmission(id: "replay", idempotencyKey: "k", uploadIDs: ["upl_good"]),
        ]
        // Queued one after another, so the next group holds them in this order.
        for (index, submission) in group.enumerated() {
            queued.append(Task { try await store.insertSubmission(submission) })
            while store.submissionCommitter.queuedCount <= index { try await Task.sleep(for: .milliseconds(5)) }
        }
        holding.open()
        #expect(try await blocker.value == .inserted)
        var outcomes: [InsertOutcome] = []
        for task in queued { outcomes.append(try await task.value) }
        let stored = try #require(try await store.submission(id: "next"))
        #expect(outcomes == [
            .uploadsUnavailable(["upl_partial"]), .uploadsUnavailable(["upl_partial"]), .inserted,
            .duplicate(existing: stored),
        ])
        #expect(store.commitStatistics.largestGroup == 4)
        #expect(try await store.upload(id: "upl_good")?.submissionID == "next")
        #expect(try await store.submission(formID: "signup", idempotencyKey: "k")?.id == "next")
        #expect(try await store.listForms().first?.submissionCount == 2)
    }
}
