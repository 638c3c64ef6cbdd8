extension SQLiteToPostgresCopy {
    /// The migrations of the SQLite schema (`grdb_migrations`) whose tables ``tables`` copies: a
    /// database with another one was made by a formhouse whose tables this copy may not know.
    static let knownSQLiteMigrations = [
        "001 forms, versions and submissions",
        "002 webhook endpoints and deliveries",
        "003 leaner submission rows",
        "004 due deliveries by endpoint",
        "005 submission counts",
        "006 uploads",
        "007 drafts",
        "008 form stats",
        "009 audit log",
    ]

    /// Every table, parents before the rows that refer to them. `forms.changed` is left to its
    /// default, the next number of the `form_changes` sequence; leases are not copied, as no worker
    /// of the SQLite server runs on once it is moved.
    static let tables: [CopiedTable] = [
        CopiedTable("forms", key: ["id"], columns: [
            .text("id"), .bigint("created_at"), .bigint("updated_at"), .bigint("deleted_at"),
            .bigint("current_version"), .bigint("submission_count"),
        ]),
        CopiedTable("form_versions", key: ["form_id", "version"], columns: [
            .text("form_id"), .bigint("version"), .text("definition"), .text("content_hash"), .text("title"),
            .bigint("created_at"),
        ]),
        CopiedTable("submissions", key: ["id"], columns: [
            .text("id"), .text("form_id"), .bigint("form_version"), .bigint("received_at"), .text("values"),
            .bytea("raw_body"), .text("idempotency_key"), .text("body_hash"), .text("client_address"),
        ]),
        CopiedTable("drafts", key: ["id"], columns: [
            .text("id"), .text("form_id"), .bigint("form_version"), .text("token_hash"), .bigint("revision"),
            .text("values"), .text("client_address"), .bigint("created_at"), .bigint("updated_at"), .bigint("expires_at"),
            .text("submission_id"),
        ]),
        CopiedTable("draft_starts", key: ["client_address", "hour"], columns: [
            .text("client_address"), .bigint("hour"), .bigint("count"),
        ]),
        CopiedTable("form_daily_stats", key: ["form_id", "day"], columns: [
            .text("form_id"), .bigint("day"), .bigint("submissions"), .bigint("rejected"), .bigint("drafts_started"),
            .bigint("drafts_submitted"),
        ]),
        CopiedTable("form_rejection_stats", key: ["form_id", "day", "field", "code"], columns: [
            .text("form_id"), .bigint("day"), .text("field"), .text("code"), .bigint("count"),
        ]),
        CopiedTable("uploads", key: ["id"], columns: [
            .text("id"), .text("form_id"), .text("field"), .text("filename"), .text("content_type"),
            .bigint("declared_size"), .bigint("received"), .text("sha256"), .boolean("complete"), .text("storage_key"),
            .text("client_address"), .bigint("created_at"), .bigint("expires_at"), .text("submission_id"),
            .text("draft_id"),
        ]),
        CopiedTable("webhook_endpoints", key: ["id"], columns: [
            .text("id"), .text("form_id"), .text("url"), .bytea("secret_ciphertext"),
            .bytea("previous_secret_ciphertext"), .bigint("previous_secret_expires_at"), .bigint("disabled_at"),
            .text("disabled_reason"), .bigint("created_at"), .bigint("deleted_at"),
        ]),
        CopiedTable("deliveries", key: ["id"], columns: [
            .text("id"), .text("endpoint_id"), .text("submission_id"), .text("form_id"), .bytea("payload"),
            .text("status"), .integer("attempts"), .bigint("next_attempt_at"), .cleared(.text("lease_owner")),
            .cleared(.bigint("lease_expires_at")), .bigint("created_at"), .bigint("updated_at"),
            .integer("last_status_code"), .text("last_error"),
        ]),
        // Copied as it is, so the chain still verifies and goes on from the same newest entry.
        CopiedTable("audit_log", key: ["sequence"], columns: [
            .bigint("sequence"), .bigint("at"), .text("actor"), .text("action"), .text("route"), .text("target"),
            .bigint("version_before"), .bigint("version_after"), .text("detail"), .text("previous_hash"), .text("hash"),
        ]),
        CopiedTable("delivery_attempts", key: ["id"], identity: "id", columns: [
            .bigint("id"), .text("delivery_id"), .bigint("attempted_at"), .integer("status_code"),
            .bigint("duration_ms"), .text("error"), .text("response_excerpt"),
        ]),
    ]
}
