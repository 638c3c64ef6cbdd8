/// Durable storage for forms, their versions, submissions, drafts, uploads, webhook deliveries and
/// daily counters: the interface the application holds, which each database implements (``SQLiteFormStore``).
///
/// It is composed of one protocol per concern, each small on purpose; the logic every store shares
/// (paging, conveniences) lives in their extensions. Definitions, values, bodies and payloads are
/// opaque to the store: it keeps what it is given. Every failure is thrown as a ``StoreError``.
public protocol FormStore: FormVersionStore, SubmissionStore, UploadStore, DraftStore, WebhookStore, FormStatsStore, RetentionStore, AuditStore, StoreOperations {}
