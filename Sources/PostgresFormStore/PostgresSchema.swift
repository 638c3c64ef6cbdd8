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
        Migration(version: 2, name: "submissions, webhooks and the form change feed", statements: [
            // Every form write takes the next number of `form_changes` into `forms.changed`: a node
            // that missed a notification finds what changed since the last number it saw.
            "CREATE SEQUENCE form_changes",
            "ALTER TABLE forms ADD COLUMN changed bigint NOT NULL DEFAULT nextval('form_changes')",
            "CREATE INDEX forms_by_change ON forms(changed)",
            """
            CREATE TABLE submissions (
                id text COLLATE "C" PRIMARY KEY,
                form_id text COLLATE "C" NOT NULL,
                form_version bigint NOT NULL,
                received_at bigint NOT NULL,
                "values" text NOT NULL,
                raw_body bytea NOT NULL,
                idempotency_key text,
                body_hash text,
                client_address text,
                FOREIGN KEY (form_id, form_version) REFERENCES form_versions(form_id, version)
            )
            """,
            // Idempotency: one submission per key and form, in the database, so a retry that reaches
            // another node finds the first; a key being inserted by another node's open transaction
            // makes the second insert wait for that transaction's outcome.
            """
            CREATE UNIQUE INDEX submissions_by_idempotency_key ON submissions(form_id, idempotency_key)
                WHERE idempotency_key IS NOT NULL
            """,
            // Paging, export and counting per form.
            "CREATE INDEX submissions_by_form_and_time ON submissions(form_id, received_at, id)",
            """
            CREATE TABLE webhook_endpoints (
                id text COLLATE "C" PRIMARY KEY,
                form_id text COLLATE "C" NOT NULL REFERENCES forms(id),
                url text NOT NULL,
                secret_ciphertext bytea NOT NULL,
                previous_secret_ciphertext bytea,
                previous_secret_expires_at bigint,
                disabled_at bigint,
                disabled_reason text,
                created_at bigint NOT NULL,
                deleted_at bigint
            )
            """,
            "CREATE INDEX webhook_endpoints_by_form ON webhook_endpoints(form_id, created_at)",
            """
            CREATE TABLE deliveries (
                id text COLLATE "C" PRIMARY KEY,
                endpoint_id text COLLATE "C" NOT NULL REFERENCES webhook_endpoints(id),
                submission_id text COLLATE "C" NOT NULL REFERENCES submissions(id),
                form_id text COLLATE "C" NOT NULL,
                payload bytea NOT NULL,
                status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'dead')),
                attempts integer NOT NULL DEFAULT 0,
                next_attempt_at bigint NOT NULL,
                lease_owner text,
                lease_expires_at bigint,
                created_at bigint NOT NULL,
                updated_at bigint NOT NULL,
                last_status_code integer,
                last_error text
            )
            """,
            // The claim query: due rows only, so the index stays as small as the queue.
            "CREATE INDEX deliveries_due ON deliveries(next_attempt_at) WHERE status IN ('pending', 'failed')",
            """
            CREATE INDEX deliveries_due_by_endpoint ON deliveries(endpoint_id, next_attempt_at)
                WHERE status IN ('pending', 'failed')
            """,
            // Admin lists (all, by status, by form; newest first); queue depth and oldest open row.
            "CREATE INDEX deliveries_by_time ON deliveries(created_at, id)",
            "CREATE INDEX deliveries_by_status ON deliveries(status, created_at, id)",
            "CREATE INDEX deliveries_by_form ON deliveries(form_id, created_at, id)",
            // Ending an endpoint's open deliveries; releasing an owner's leases; foreign key checks.
            "CREATE INDEX deliveries_by_endpoint ON deliveries(endpoint_id, status)",
            "CREATE INDEX deliveries_by_lease_owner ON deliveries(lease_owner) WHERE lease_owner IS NOT NULL",
            "CREATE INDEX deliveries_by_submission ON deliveries(submission_id)",
            // Ids given by the database; a copy from SQLite inserts its own and moves the sequence past them.
            """
            CREATE TABLE delivery_attempts (
                id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                delivery_id text COLLATE "C" NOT NULL REFERENCES deliveries(id),
                attempted_at bigint NOT NULL,
                status_code integer,
                duration_ms bigint NOT NULL,
                error text,
                response_excerpt text
            )
            """,
            "CREATE INDEX delivery_attempts_by_delivery ON delivery_attempts(delivery_id, id)",
        ]),
        // Files uploaded for a form, bound to the submission that names them in its transaction. The
        // sweeper reads the unbound ones by expiry; the in-progress caps count the incomplete ones,
        // which are few, so both indexes hold only those rows.
        Migration(version: 3, name: "uploads", statements: [
            """
            CREATE TABLE uploads (
                id text COLLATE "C" PRIMARY KEY,
                form_id text COLLATE "C" NOT NULL REFERENCES forms(id),
                field text NOT NULL,
                filename text,
                content_type text NOT NULL,
                declared_size bigint,
                received bigint NOT NULL,
                sha256 text,
                complete boolean NOT NULL,
                storage_key text NOT NULL,
                client_address text,
                created_at bigint NOT NULL,
                expires_at bigint NOT NULL,
                submission_id text COLLATE "C" REFERENCES submissions(id)
            )
            """,
            "CREATE INDEX uploads_unbound_by_expiry ON uploads(expires_at, id) WHERE submission_id IS NULL",
            """
            CREATE INDEX uploads_by_submission ON uploads(submission_id, created_at, id)
                WHERE submission_id IS NOT NULL
            """,
            "CREATE INDEX uploads_incomplete ON uploads(client_address, created_at) WHERE NOT complete",
        ]),
        // Drafts, submitted once: the submission's transaction sets `submission_id`. The sweeper reads
        // them by expiry; a submission the group writer deletes again is checked against `submission_id`.
        // The per-client hourly limit counts starts in `draft_starts`, which deleting a draft does not
        // decrease. An upload a draft names is tied to it (`draft_id`), so that deleting the draft lets
        // the upload go.
        Migration(version: 4, name: "drafts", statements: [
            """
            CREATE TABLE drafts (
                id text COLLATE "C" PRIMARY KEY,
                form_id text COLLATE "C" NOT NULL,
                form_version bigint NOT NULL,
                token_hash text NOT NULL,
                revision bigint NOT NULL,
                "values" text NOT NULL,
                client_address text,
                created_at bigint NOT NULL,
                updated_at bigint NOT NULL,
                expires_at bigint NOT NULL,
                submission_id text COLLATE "C" REFERENCES submissions(id),
                FOREIGN KEY (form_id, form_version) REFERENCES form_versions(form_id, version)
            )
            """,
            "CREATE INDEX drafts_by_expiry ON drafts(expires_at, id)",
            """
            CREATE TABLE draft_starts (
                client_address text COLLATE "C" NOT NULL,
                hour bigint NOT NULL,
                count bigint NOT NULL,
                PRIMARY KEY (client_address, hour)
            )
            """,
            "CREATE INDEX drafts_by_submission ON drafts(submission_id) WHERE submission_id IS NOT NULL",
            "ALTER TABLE uploads ADD COLUMN draft_id text COLLATE \"C\"",
            "CREATE INDEX uploads_by_draft ON uploads(draft_id) WHERE draft_id IS NOT NULL",
        ]),
        // A form's counters per UTC day, kept by the transactions that change what they count (see
        // `FormStatsStore`). Submissions already stored are counted here, so the counters equal the
        // rows from the first start on. Numbered 5: 4 is the drafts' migration.
        Migration(version: 5, name: "form stats", statements: [
            """
            CREATE TABLE form_daily_stats (
                form_id text COLLATE "C" NOT NULL REFERENCES forms(id),
                day bigint NOT NULL,
                submissions bigint NOT NULL DEFAULT 0,
                rejected bigint NOT NULL DEFAULT 0,
                drafts_started bigint NOT NULL DEFAULT 0,
                drafts_submitted bigint NOT NULL DEFAULT 0,
                PRIMARY KEY (form_id, day)
            )
            """,
            """
            CREATE TABLE form_rejection_stats (
                form_id text COLLATE "C" NOT NULL REFERENCES forms(id),
                day bigint NOT NULL,
                field text COLLATE "C" NOT NULL,
                code text COLLATE "C" NOT NULL,
                count bigint NOT NULL,
                PRIMARY KEY (form_id, day, field, code)
            )
            """,
            """
            INSERT INTO form_daily_stats (form_id, day, submissions)
                SELECT form_id, received_at / 86400000, count(*) FROM submissions GROUP BY form_id, received_at / 86400000
            """,
        ]),
        // Admin writes, appended in each write's transaction and chained by hash (see `AuditChain`).
        // The trigger makes the log append-only for every role that does not own the table.
        Migration(version: 6, name: "audit log", statements: [
            """
            CREATE TABLE audit_log (
                sequence bigint PRIMARY KEY,
                at bigint NOT NULL,
                actor text COLLATE "C" NOT NULL,
                action text COLLATE "C" NOT NULL,
                route text COLLATE "C" NOT NULL,
                target text COLLATE "C" NOT NULL,
                version_before bigint,
                version_after bigint,
                detail text,
                previous_hash text NOT NULL,
                hash text NOT NULL
            )
            """,
            "CREATE INDEX audit_log_by_target ON audit_log(target, sequence)",
            """
            CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'the audit log is append-only'; END $$
            """,
            """
            CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_log
            FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()
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
