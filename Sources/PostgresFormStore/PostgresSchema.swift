import Logging
import PostgresNIO

/// The database schema as named, numbered migrations, recorded in `schema_migrations`. Dates are
/// integer milliseconds since 1970 (UTC), as in the SQLite store.
enum PostgresSchema {
    struct Migration: Sendable {
        var version: Int
        var name: String
        /// One statement each: the extended query protocol takes no more.
        var statements: [String]
    }

    /// The key of the session advisory lock that migrations run under, so that nodes starting together
    /// migrate one after another (the later ones then find nothing left to do).
    static let migrationLockKey: Int64 = 0x466F_726D_686F_7573  // "Formhous"

    static let migrations: [Migration] = [
        Migration(version: 1, name: "forms and versions", statements: [
            // Ids sort and compare byte by byte ("C"), as `listForms(after:)` promises, whatever the
            // database's collation; the primary key's index then serves that order.
            """
            CREATE TABLE forms (
                id text COLLATE "C" PRIMARY KEY,
                created_at bigint NOT NULL,
                updated_at bigint NOT NULL,
                deleted_at bigint,
                current_version bigint NOT NULL,
                submission_count bigint NOT NULL DEFAULT 0
            )
            """,
            """
            CREATE TABLE form_versions (
                form_id text COLLATE "C" NOT NULL REFERENCES forms(id),
                version bigint NOT NULL,
                definition text NOT NULL,
                content_hash text NOT NULL,
                title text NOT NULL,
                created_at bigint NOT NULL,
                PRIMARY KEY (form_id, version)
            )
            """,
        ]),
    ]

    /// Applies the migrations the database lacks, each in its own transaction, under the advisory lock
    /// (a session lock: closing the connection releases it too).
    static func migrate(on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.execute("SELECT pg_advisory_lock(\(migrationLockKey))", logger: logger)
        try await applyMissing(on: connection, logger: logger)
        try await connection.execute("SELECT pg_advisory_unlock(\(migrationLockKey))", logger: logger)
    }

    private static func applyMissing(on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version bigint PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """, logger: logger)
        var applied = Set<Int>()
        for try await version in try await connection.query("SELECT version FROM schema_migrations", logger: logger)
            .decode(Int.self) {
            applied.insert(version)
        }
        for migration in migrations where !applied.contains(migration.version) {
            try await connection.withTransaction(logger: logger) { connection in
                for statement in migration.statements {
                    try await connection.execute(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger: logger)
            }
            logger.info("applied migration", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
        }
    }
}
