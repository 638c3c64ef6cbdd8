import FormStore
import Foundation
import StoreTestSupport
import Testing

@testable import PostgresFormStore

/// Submitting one draft from nodes that share a database: its row lock makes the submissions take it
/// one after another.
@Suite struct PostgresDraftTests {
    /// The second node's submission waits for the first node's open transaction, which holds the
    /// draft, and is answered with the first node's submission once that transaction commits.
    @Test func aDraftBeingSubmittedOnOneNodeIsAnsweredAsSubmittedOnAnother() async throws {
        let holding = Gate()
        try await withTwoNodes(firstHeldAt: holding) { first, second in
            try await first.createDraft(newDraft(id: "drf_a"), uploadIDs: [])
            let held = Task { try await first.insertSubmission(newSubmission(id: "from-first", draftID: "drf_a")) }
            try await holding.waitUntilSomeoneWaits()
            let waiting = Task { try await second.insertSubmission(newSubmission(id: "from-second", draftID: "drf_a")) }
            try await Task.sleep(for: .milliseconds(500))
            #expect(second.commitStatistics.groups == 0, "the second node did not wait for the draft")
            holding.open()
            #expect(try await held.value == .inserted)
            let stored = try #require(try await second.submission(id: "from-first"))
            #expect(try await waiting.value == .draftSubmitted(existing: stored))
            #expect(try await second.submission(id: "from-second") == nil)
            #expect(try await second.draft(id: "drf_a")?.submissionID == "from-first")
            #expect(try await second.listForms().first?.submissionCount == 1)
        }
    }

    @Test func twoNodesRacingForTheSameDraftsStoreOneSubmissionEach() async throws {
        let settings = try PostgresTestCluster.shared().freshDatabase()
        let nodes = [try await PostgresFormStore(settings: settings), try await PostgresFormStore(settings: settings)]
        defer { nodes.forEach { $0.close() } }
        try await makeForm(nodes[0])
        for index in 0..<10 { try await nodes[0].createDraft(newDraft(id: "drf_\(index)"), uploadIDs: []) }
        let outcomes = try await withThrowingTaskGroup(of: (String, InsertOutcome).self) { group in
            for index in 0..<120 {
                let node = nodes[index % 2]
                group.addTask {
                    ("s\(index)", try await node.insertSubmission(newSubmission(id: "s\(index)", draftID: "drf_\(index % 10)")))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let winners = Set(outcomes.filter { $0.1 == .inserted }.map(\.0))
        #expect(winners.count == 10)
        for index in 0..<10 {
            let owner = try #require(try await nodes[1].draft(id: "drf_\(index)")?.submissionID)
            #expect(winners.contains(owner))
            let stored = try #require(try await nodes[1].submission(id: owner))
            let losers = outcomes.filter { Int($0.0.dropFirst())! % 10 == index && $0.0 != owner }
            #expect(losers.count == 11 && losers.allSatisfy { $0.1 == .draftSubmitted(existing: stored) }, "drf_\(index)")
        }
        #expect(try await nodes[0].listForms().first?.submissionCount == 10)
    }
}
