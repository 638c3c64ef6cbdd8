import Foundation
import GRDB

/// The audit log of a SQLite database file, read-only: what `formhouse audit verify` reads, beside a
/// server that may be writing to the same file.
public final class SQLiteAuditLogFile: AuditStore {
    private let queue: DatabaseQueue

    /// Opens `path` for reading; throws ``StoreError/unavailable(_:)`` when it is missing or not a
    /// Formhouse database with an audit log.
    public init(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw StoreError.unavailable("there is no database at \(path)") }
        var configuration = Configuration()
        configuration.readonly = true
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
            let hasLog = try queue.read { db in try db.tableExists("audit_log") }
            guard hasLog else { throw StoreError.unavailable("\(path) has no audit log; a server of this version creates it when it starts") }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.unavailable("\(path): \(error)")
        }
    }

    public func auditEntries(_ query: AuditQuery) async throws -> [AuditEntry] {
        do {
            return try await queue.read { db in try AuditLog.entries(query, in: db) }
        } catch {
            throw SQLiteFormStore.storeError(error)
        }
    }
}
