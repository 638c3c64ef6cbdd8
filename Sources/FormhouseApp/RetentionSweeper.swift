import FormStore
import Foundation
import Logging
import Metrics
import Synchronization

/// Deletes submissions older than their form's `retentionDays` (or `retention.days`), with their
/// deliveries, attempts and files, in batches of one short transaction each, so that submissions
/// being stored meanwhile wait for one batch at most.
struct RetentionSweeper: Sendable {
    let store: any FormStore
    /// `retention.days`; 0 keeps the submissions of forms that set no `retentionDays`.
    let defaultDays: Int
    let logger: Logger
    static let batch = 500
    /// Each form version's `retentionDays` (nil when it sets none), read once: a version never
    /// changes, and every pass would otherwise parse the definition of every form holding submissions.
    private let retentionDays = VersionRetention()

    init(store: any FormStore, defaultDays: Int, logger: Logger) {
        self.store = store
        self.defaultDays = defaultDays
        self.logger = logger
    }

    /// Deletes, form by form, every submission past its form's retention at `now`; returns what went.
    @discardableResult
    func sweepOnce(now: Date = Date()) async throws -> DeletedSubmissions {
        var total = DeletedSubmissions()
        // Deleted forms too: their submissions are kept as long as the last version said, not forever.
        for form in try await store.formsHoldingSubmissions() {
            let key = "\(form.id)\u{0}\(form.currentVersion)"
            let set: Int?
            if case .some(let known) = retentionDays.days.withLock({ $0[key] }) {
                set = known
            } else {
                guard let last = try await store.storedDefinition(formID: form.id, version: form.currentVersion) else { continue }
                set = last.retentionDays
                retentionDays.days.withLock { $0[key] = .some(set) }
            }
            let days = set ?? defaultDays
            guard days > 0 else { continue }
            let before = now.addingTimeInterval(-Double(days) * 86_400)
            while !Task.isCancelled {
                let batch = try await store.deleteSubmissions(formID: form.id, receivedBefore: before, limit: Self.batch)
                total += batch
                Self.count(batch)
                if batch.submissions < Self.batch { break }
                // Submissions waiting for the writer go before the next batch.
                await Task.yield()
            }
        }
        if total.submissions > 0 {
            logger.info("deleted submissions past their retention", metadata: [
                "submissions": "\(total.submissions)", "deliveries": "\(total.deliveries)", "attempts": "\(total.attempts)",
                "files": "\(total.files)",
            ])
        }
        return total
    }

    /// `formhouse_retention_deleted_total` by kind of row.
    private static func count(_ batch: DeletedSubmissions) {
        for (kind, value) in [("submissions", batch.submissions), ("deliveries", batch.deliveries),
                              ("attempts", batch.attempts), ("files", batch.files)] where value > 0 {
            Counter(label: "formhouse_retention_deleted_total", dimensions: [("kind", kind)]).increment(by: value)
        }
    }
}

/// The `retentionDays` of form versions already read, by form id and version.
private final class VersionRetention: Sendable {
    let days = Mutex<[String: Int?]>([:])
}
