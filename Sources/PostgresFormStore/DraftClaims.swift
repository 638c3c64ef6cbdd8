import FormStore
import Foundation
import PostgresNIO

/// The drafts that one group's submissions are submitted from, locked for the group's transaction, and
/// which of its rows takes each: the group writer's part of closing drafts (`SubmissionGroupWriter`).
///
/// The drafts are locked in id order before any row is inserted, so that groups submitting one draft
/// on several nodes take it one after another: the later group reads the draft as the earlier one
/// committed it. A draft goes to the first stored row naming it; the group's other rows naming it
/// wait for that row's outcome (``firstPerDraft(_:in:)``).
struct DraftClaims {
    /// Why a stored row cannot keep its draft; the writer deletes the row again.
    enum Refusal {
        /// There is no such draft.
        case missing(draftID: String)
        /// The draft was submitted already, as this submission.
        case submitted(submissionID: String)
    }

    /// The locked drafts by id: the submission each went to, nil while open. A draft not here does not exist.
    private var holders: [String: String?] = [:]
    private let logger: Logger

    /// Locks the drafts that the rows `indices` of `group` name.
    init(naming indices: [Int], in group: [NewSubmission], on connection: PostgresConnection, logger: Logger) async throws {
        self.logger = logger
        let ids = Array(Set(indices.compactMap { group[$0].draftID }))
        if ids.isEmpty { return }
        let rows = try await connection.query(
            "SELECT id, submission_id FROM drafts WHERE id = ANY(\(ids)) ORDER BY id FOR UPDATE", logger: logger)
        for try await (id, submissionID) in rows.decode((String, String?).self) {
            holders[id] = .some(submissionID)
        }
    }

    /// `pending` split into the rows to insert now, at most one per draft, and those to try a round later.
    static func firstPerDraft(_ pending: [Int], in group: [NewSubmission]) -> (now: [Int], later: [Int]) {
        var named = Set<String>()
        var now: [Int] = []
        var later: [Int] = []
        for index in pending {
            if let draftID = group[index].draftID, !named.insert(draftID).inserted {
                later.append(index)
            } else {
                now.append(index)
            }
        }
        return (now, later)
    }

    /// Gives each just stored row of `stored` its draft, when the draft is open, and answers why the
    /// others cannot have theirs.
    mutating func claim(for stored: [Int], in group: [NewSubmission]) -> [Int: Refusal] {
        var refused: [Int: Refusal] = [:]
        for index in stored {
            guard let draftID = group[index].draftID else { continue }
            switch holders[draftID] {
            case nil: refused[index] = .missing(draftID: draftID)
            case .some(.some(let submissionID)): refused[index] = .submitted(submissionID: submissionID)
            case .some(nil): holders[draftID] = .some(group[index].record.id)
            }
        }
        return refused
    }

    /// Reopens the draft of `submission`, which was deleted again after it claimed it.
    mutating func release(_ submission: NewSubmission) {
        if let draftID = submission.draftID { holders[draftID] = .some(nil) }
    }

    /// Closes the drafts of the rows the group stores, in one statement.
    func close(_ inserted: [NewSubmission], on connection: PostgresConnection) async throws {
        let closing = inserted.filter { $0.draftID != nil }
        if closing.isEmpty { return }
        try await connection.execute("""
            UPDATE drafts SET submission_id = c.submission_id, updated_at = c.updated_at
            FROM unnest(\(closing.map { $0.draftID ?? "" })::text[], \(closing.map(\.record.id))::text[],
                \(closing.map(\.record.receivedAt.storedMilliseconds))::bigint[]) AS c(id, submission_id, updated_at)
            WHERE drafts.id = c.id
            """, logger: logger)
    }
}
