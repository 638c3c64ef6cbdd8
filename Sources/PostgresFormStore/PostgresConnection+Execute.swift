import Logging
import PostgresNIO

extension PostgresConnection {
    /// Runs a statement for its effect and reads its rows to the end: a failure that comes while the
    /// server executes a statement that has rows (a `SELECT pg_advisory_lock(…)` cancelled by
    /// `statement_timeout`, say) arrives with the rows, and would go unseen if they were not read.
    func execute(_ query: PostgresQuery, logger: Logger) async throws {
        for try await _ in try await self.query(query, logger: logger) {}
    }
}
