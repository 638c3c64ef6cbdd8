import FormStore
import Foundation
import Logging
import Metrics

/// Deletes uploads never bound to a submission once they expire (24 hours by default): their bytes,
/// staged or stored, then their records, in small batches so that it never holds up submissions.
/// Expired drafts go first in each pass, so that the uploads they leave go in the same pass, then
/// submissions past their retention, whose uploads go in the next.
struct UploadSweeper: Sendable {
    let store: any FormStore
    let tus: TusUploads
    let drafts: DraftSweeper?
    let retention: RetentionSweeper?
    let interval: Duration
    /// How old a staged file must be before one without an unfinished upload is removed.
    let orphanAge: TimeInterval
    let logger: Logger
    static let batch = 100
    private let swept = Counter(label: "formhouse_uploads_swept_total")

    init(
        store: any FormStore, tus: TusUploads, drafts: DraftSweeper? = nil, retention: RetentionSweeper? = nil, interval: Duration,
        orphanAge: TimeInterval, logger: Logger
    ) {
        self.store = store
        self.tus = tus
        self.drafts = drafts
        self.retention = retention
        self.interval = interval
        self.orphanAge = orphanAge
        self.logger = logger
    }

    /// Sweeps every `interval` until cancelled.
    func run() async {
        while !Task.isCancelled {
            do {
                try await sweepOnce()
            } catch {
                logger.warning("sweeping expired uploads failed; trying again later", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// Deletes every upload expired by `now`; returns how many.
    @discardableResult
    func sweepOnce(now: Date = Date()) async throws -> Int {
        // The uploads' pass does not depend on these: it runs whatever they met.
        do {
            try await drafts?.sweepOnce(now: now)
        } catch {
            logger.warning("sweeping expired drafts failed; trying again later", metadata: ["error": "\(error)"])
        }
        do {
            try await retention?.sweepOnce(now: now)
        } catch {
            logger.warning("deleting submissions past their retention failed; trying again later", metadata: ["error": "\(error)"])
        }
        let total = try await deleteExpiredUploads(now: now)
        let orphans = try await tus.removeOrphanedStagedFiles(olderThan: orphanAge)
        if total > 0 || orphans > 0 {
            logger.info("swept expired uploads", metadata: ["count": "\(total)", "staged_files": "\(orphans)"])
        }
        return total
    }

    /// Deletes the uploads expired by `now`, bytes first; returns how many. Erasure calls it at once,
    /// so that an erased submission's files are gone when it answers.
    @discardableResult
    func deleteExpiredUploads(now: Date = Date()) async throws -> Int {
        var total = 0
        while true {
            let expired = try await store.expiredUploads(before: now, limit: Self.batch)
            var deleted = 0
            for record in expired where await tus.terminate(record) { deleted += 1 }
            total += deleted
            swept.increment(by: deleted)
            // A batch that deleted nothing (the database refuses deletes) waits for the next round.
            if expired.count < Self.batch || deleted == 0 || Task.isCancelled { break }
        }
        return total
    }
}
