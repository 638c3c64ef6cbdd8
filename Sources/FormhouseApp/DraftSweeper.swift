import FormStore
import Foundation
import Logging
import Metrics

/// Deletes expired drafts in small batches. Their uploads that no submission took are set to expire
/// by the store, so the upload sweeper's pass that follows removes them and their bytes.
struct DraftSweeper: Sendable {
    let store: any FormStore
    let logger: Logger
    static let batch = 500
    private let swept = Counter(label: "formhouse_drafts_swept_total")

    init(store: any FormStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Deletes every draft expired by `now`; returns how many.
    @discardableResult
    func sweepOnce(now: Date = Date()) async throws -> Int {
        var total = 0
        while !Task.isCancelled {
            let deleted = try await store.deleteExpiredDrafts(before: now, limit: Self.batch)
            total += deleted
            swept.increment(by: deleted)
            if deleted < Self.batch { break }
        }
        if total > 0 { logger.info("swept expired drafts", metadata: ["count": "\(total)"]) }
        return total
    }
}
