import FormStore
import PostgresNIO

/// Writes one group of rejections into the forms' daily counters in one transaction.
struct RejectionGroupWriter: Sendable {
    let client: PostgresClient
    let configuration: PostgresStoreConfiguration
    let logger: Logger

    /// Every rejection of the group succeeds, counted or skipped (an unknown form), or the group fails.
    func write(_ group: [Rejection]) async throws -> [Result<Void, StoreError>] {
        // Every form is tallied: the statements leave out those that do not exist.
        let tally = RejectionTally(group) { _ in true }
        try await client.transaction(configuration, logger: logger) { connection in
            try await PostgresFormStatsQueries.addRejections(tally, on: connection, logger: logger)
        }
        return Array(repeating: .success(()), count: group.count)
    }
}
