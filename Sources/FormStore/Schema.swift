import GRDB

/// The database schema as named, ordered migrations. Dates are integer milliseconds since 1970 (UTC).
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()

        migrator.registerMigration("001 forms, versions and submissions") { db in
            try db.execute(sql: """
                CREATE TABLE forms (
                    id TEXT PRIMARY KEY NOT NULL,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    deleted_at INTEGER,
                    current_version INTEGER NOT NULL
                ) STRICT;

                CREATE TABLE form_versions (
                    form_id TEXT NOT NULL REFERENCES forms(id),
                    version INTEGER NOT NULL,
                    definition TEXT NOT NULL,
                    content_hash TEXT NOT NULL,
                    title TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (form_id, version)
                ) STRICT;

                CREATE TABLE submissions (
                    id TEXT PRIMARY KEY NOT NULL,
                    form_id TEXT NOT NULL,
                    form_version INTEGER NOT NULL,
                    received_at INTEGER NOT NULL,
                    "values" TEXT NOT NULL,
                    raw_body BLOB NOT NULL,
                    idempotency_key TEXT,
                    body_hash TEXT,
                    response TEXT NOT NULL,
                    client_address TEXT,
                    FOREIGN KEY (form_id, form_version) REFERENCES form_versions(form_id, version)
                ) STRICT;

                -- Idempotency: one submission per key and form (NULL keys do not clash).
                CREATE UNIQUE INDEX submissions_by_idempotency_key ON submissions(form_id, idempotency_key);
                -- Paging, export and counting per form.
                CREATE INDEX submissions_by_form_and_time ON submissions(form_id, received_at, id);
                """)
        }

        migrator.registerMigration("002 webhook endpoints and deliveries") { db in
            try db.execute(sql: """
                CREATE TABLE webhook_endpoints (
                    id TEXT PRIMARY KEY NOT NULL,
                    form_id TEXT NOT NULL REFERENCES forms(id),
                    url TEXT NOT NULL,
                    secret_ciphertext BLOB NOT NULL,
                    previous_secret_ciphertext BLOB,
                    previous_secret_expires_at INTEGER,
                    disabled_at INTEGER,
                    disabled_reason TEXT,
                    created_at INTEGER NOT NULL,
                    deleted_at INTEGER
                ) STRICT;

                CREATE INDEX webhook_endpoints_by_form ON webhook_endpoints(form_id, created_at);

                CREATE TABLE deliveries (
                    id TEXT PRIMARY KEY NOT NULL,
                    endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id),
                    submission_id TEXT NOT NULL REFERENCES submissions(id),
                    form_id TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'dead')),
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at INTEGER NOT NULL,
                    lease_owner TEXT,
                    lease_expires_at INTEGER,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    last_status_code INTEGER,
                    last_error TEXT
                ) STRICT;

                -- The worker's claim query: due rows only, so the index stays as small as the queue.
                CREATE INDEX deliveries_due ON deliveries(next_attempt_at) WHERE status IN ('pending', 'failed');
                -- Admin lists (all, by status, by form; newest first); queue depth and oldest open row.
                CREATE INDEX deliveries_by_time ON deliveries(created_at, id);
                CREATE INDEX deliveries_by_status ON deliveries(status, created_at, id);
                CREATE INDEX deliveries_by_form ON deliveries(form_id, created_at, id);
                -- Ending an endpoint's open deliveries; releasing an owner's leases; foreign key checks.
                CREATE INDEX deliveries_by_endpoint ON deliveries(endpoint_id, status);
                CREATE INDEX deliveries_by_lease_owner ON deliveries(lease_owner) WHERE lease_owner IS NOT NULL;
                CREATE INDEX deliveries_by_submission ON deliveries(submission_id);

                CREATE TABLE delivery_attempts (
                    id INTEGER PRIMARY KEY,
                    delivery_id TEXT NOT NULL REFERENCES deliveries(id),
                    attempted_at INTEGER NOT NULL,
                    status_code INTEGER,
                    duration_ms INTEGER NOT NULL,
                    error TEXT,
                    response_excerpt TEXT
                ) STRICT;

                CREATE INDEX delivery_attempts_by_delivery ON delivery_attempts(delivery_id, id);
                """)
        }

        // Leaner submission rows, as every group commit writes each row's pages twice (WAL, then
        // checkpoint). No answer is stored: the caller rebuilds it from the row on a replay (stored, it
        // repeats the values and is close to half of every row), and a submission without an
        // idempotency key adds no entry to the key index (NULL keys never clash, and a lookup by
        // `idempotency_key = ?` implies NOT NULL, so it still uses the partial index; a test checks).
        migrator.registerMigration("003 leaner submission rows") { db in
            try db.execute(sql: """
                ALTER TABLE submissions DROP COLUMN response;
                DROP INDEX submissions_by_idempotency_key;
                CREATE UNIQUE INDEX submissions_by_idempotency_key ON submissions(form_id, idempotency_key)
                    WHERE idempotency_key IS NOT NULL;
                """)
        }

        // Claims read each endpoint's due deliveries on their own, so the backlog of an endpoint the
        // worker skips (slow, saturated) is not walked on every claim inside the write transaction.
        migrator.registerMigration("004 due deliveries by endpoint") { db in
            try db.execute(sql: """
                CREATE INDEX deliveries_due_by_endpoint ON deliveries(endpoint_id, next_attempt_at)
                    WHERE status IN ('pending', 'failed');
                """)
        }

        // Each form keeps its submission count, which the writer adds to once per group and form, so
        // the forms list does not count a form's rows on every read.
        migrator.registerMigration("005 submission counts") { db in
            try db.execute(sql: """
                ALTER TABLE forms ADD COLUMN submission_count INTEGER NOT NULL DEFAULT 0;
                UPDATE forms SET submission_count = (SELECT COUNT(*) FROM submissions s WHERE s.form_id = forms.id);
                """)
        }

        // Files uploaded for a form, bound to the submission that names them in its transaction. The
        // sweeper reads the unbound ones by expiry; the in-progress caps count the incomplete ones,
        // which are few, so both indexes hold only those rows.
        migrator.registerMigration("006 uploads") { db in
            try db.execute(sql: """
                CREATE TABLE uploads (
                    id TEXT PRIMARY KEY NOT NULL,
                    form_id TEXT NOT NULL REFERENCES forms(id),
                    field TEXT NOT NULL,
                    filename TEXT,
                    content_type TEXT NOT NULL,
                    declared_size INTEGER,
                    received INTEGER NOT NULL,
                    sha256 TEXT,
                    complete INTEGER NOT NULL CHECK (complete IN (0, 1)),
                    storage_key TEXT NOT NULL,
                    client_address TEXT,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    submission_id TEXT REFERENCES submissions(id)
                ) STRICT;

                CREATE INDEX uploads_unbound_by_expiry ON uploads(expires_at, id) WHERE submission_id IS NULL;
                CREATE INDEX uploads_by_submission ON uploads(submission_id, created_at, id) WHERE submission_id IS NOT NULL;
                CREATE INDEX uploads_incomplete ON uploads(client_address, created_at) WHERE complete = 0;
                """)
        }

        // Drafts, submitted once: the submission's transaction sets `submission_id`. The sweeper reads
        // them by expiry. The per-client hourly limit counts starts in `draft_starts`, which deleting a
        // draft does not decrease. An upload a draft names is tied to it (`draft_id`), so that deleting
        // the draft lets the upload go.
        migrator.registerMigration("007 drafts") { db in
            try db.execute(sql: """
                CREATE TABLE drafts (
                    id TEXT PRIMARY KEY NOT NULL,
                    form_id TEXT NOT NULL,
                    form_version INTEGER NOT NULL,
                    token_hash TEXT NOT NULL,
                    revision INTEGER NOT NULL,
                    "values" TEXT NOT NULL,
                    client_address TEXT,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    submission_id TEXT REFERENCES submissions(id),
                    FOREIGN KEY (form_id, form_version) REFERENCES form_versions(form_id, version)
                ) STRICT;

                CREATE INDEX drafts_by_expiry ON drafts(expires_at, id);
                CREATE INDEX drafts_by_submission ON drafts(submission_id) WHERE submission_id IS NOT NULL;

                CREATE TABLE draft_starts (
                    client_address TEXT NOT NULL,
                    hour INTEGER NOT NULL,
                    count INTEGER NOT NULL,
                    PRIMARY KEY (client_address, hour)
                ) WITHOUT ROWID, STRICT;

                ALTER TABLE uploads ADD COLUMN draft_id TEXT;
                CREATE INDEX uploads_by_draft ON uploads(draft_id) WHERE draft_id IS NOT NULL;
                """)
        }

        // A form's counters per UTC day, kept by the transactions that change what they count (see
        // `FormStatsStore`). Submissions already stored are counted here, so the counters equal the
        // rows from the first start on.
        migrator.registerMigration("008 form stats") { db in
            try db.execute(sql: """
                CREATE TABLE form_daily_stats (
                    form_id TEXT NOT NULL REFERENCES forms(id),
                    day INTEGER NOT NULL,
                    submissions INTEGER NOT NULL DEFAULT 0,
                    rejected INTEGER NOT NULL DEFAULT 0,
                    drafts_started INTEGER NOT NULL DEFAULT 0,
                    drafts_submitted INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (form_id, day)
                ) WITHOUT ROWID, STRICT;

                CREATE TABLE form_rejection_stats (
                    form_id TEXT NOT NULL REFERENCES forms(id),
                    day INTEGER NOT NULL,
                    field TEXT NOT NULL,
                    code TEXT NOT NULL,
                    count INTEGER NOT NULL,
                    PRIMARY KEY (form_id, day, field, code)
                ) WITHOUT ROWID, STRICT;

                INSERT INTO form_daily_stats (form_id, day, submissions)
                    SELECT form_id, received_at / 86400000, COUNT(*) FROM submissions GROUP BY form_id, received_at / 86400000;
                """)
        }

        // Admin writes, appended in each write's transaction and chained by hash (see `AuditChain`).
        // The triggers make the log append-only for every connection: undoing them takes a schema
        // change, which `formhouse audit verify` then catches by the chain.
        migrator.registerMigration("009 audit log") { db in
            try db.execute(sql: """
                CREATE TABLE audit_log (
                    sequence INTEGER PRIMARY KEY NOT NULL,
                    at INTEGER NOT NULL,
                    actor TEXT NOT NULL,
                    action TEXT NOT NULL,
                    route TEXT NOT NULL,
                    target TEXT NOT NULL,
                    version_before INTEGER,
                    version_after INTEGER,
                    detail TEXT,
                    previous_hash TEXT NOT NULL,
                    hash TEXT NOT NULL
                ) STRICT;

                CREATE INDEX audit_log_by_target ON audit_log(target, sequence);

                CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
                BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;

                CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
                BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
                """)
        }

        return migrator
    }
}
