import Foundation

/// Durable storage for forms, their versions, submissions and webhook deliveries.
///
/// The protocol is small on purpose so that another database (PostgreSQL) can implement it later.
/// Definitions, values, bodies and payloads are opaque to the store: it keeps what it is given.
/// Every failure is thrown as a ``StoreError``.
public protocol FormStore: Sendable {
    // MARK: Forms

    /// Stores a definition as the form's new current version.
    ///
    /// An upload whose `contentHash` equals the current version's keeps that version. A deleted form is
    /// brought back with a new version. With `createOnly`, a form that exists (not deleted) is left as
    /// it is and ``StoreError/conflict(_:)`` is thrown, decided in the same transaction. A
    /// `precondition` is given the live current version (nil for an unknown or deleted form) in that
    /// transaction; when it returns false nothing is stored and ``StoreError/preconditionFailed(currentVersion:)``
    /// is thrown.
    func saveFormVersion(
        formID: String, definition: String, title: String, contentHash: String, createOnly: Bool,
        precondition: (@Sendable (Int?) -> Bool)?
    ) async throws -> SavedVersion

    /// The current version of a form, or `nil` when the form is unknown or deleted.
    func currentForm(id: String) async throws -> FormVersionRecord?

    /// Any version of a form, even of a deleted one (see ``FormVersionRecord/formDeletedAt``).
    func formVersion(id: String, version: Int) async throws -> FormVersionRecord?

    /// A form's versions, oldest first: at most `limit` of them, those after version `after` when given.
    func formVersions(id: String, after: Int?, limit: Int) async throws -> [FormVersionSummary]

    /// The forms that are not deleted, ordered by id: at most `limit` of them, those whose id sorts
    /// after `after` (by SQLite's binary text order) when given.
    func listForms(after: String?, limit: Int) async throws -> [FormSummary]

    /// Marks a form deleted; its versions and submissions are kept. Returns `false` when it was unknown
    /// or already deleted. A `precondition` is checked as for ``saveFormVersion(formID:definition:title:contentHash:createOnly:precondition:)``.
    func deleteForm(id: String, precondition: (@Sendable (Int?) -> Bool)?) async throws -> Bool

    /// Whether a form with this id exists.
    func formExists(id: String, includingDeleted: Bool) async throws -> Bool

    // MARK: Submissions

    /// Stores a submission and one pending delivery per active webhook endpoint of its form, durably.
    ///
    /// Returns only after the transaction that holds it is committed to disk. Concurrent calls share
    /// one transaction (group commit). Throws ``StoreError/unavailable(_:)`` when that transaction
    /// fails: nothing of the submission is stored then.
    /// The submission is consumed: it travels to the writer without a copy of its fields.
    func insertSubmission(_ submission: consuming NewSubmission) async throws -> InsertOutcome

    /// One submission by id.
    func submission(id: String) async throws -> SubmissionRecord?

    /// The submission stored under an idempotency key of a form within the store's idempotency window
    /// (24 hours by default); an older one has given the key up, and nil comes back.
    func submission(formID: String, idempotencyKey: String) async throws -> SubmissionRecord?

    /// A page of a form's submissions, newest first; pass the page's `nextCursor` to get the next one.
    func submissions(formID: String, after cursor: SubmissionCursor?, limit: Int) async throws -> SubmissionPage

    /// Every submission of a form, oldest first, in batches of at most `batchSize` rows and, past the
    /// first row, about `maxBatchBytes` of values, so a batch of large submissions stays small in
    /// memory. Rows come without their raw body (`rawBody` is empty): exports never need it, and it is
    /// as large as the values. No read transaction is held while `body` runs, so a slow consumer does
    /// not hold the database.
    func forEachSubmission(
        formID: String,
        batchSize: Int,
        maxBatchBytes: Int,
        _ body: @Sendable ([SubmissionRecord]) async throws -> Void
    ) async throws

    // MARK: Webhook endpoints

    /// Adds a webhook endpoint to a form. Throws ``StoreError/notFound(_:)`` when the form is unknown.
    func createEndpoint(_ endpoint: NewEndpoint) async throws -> EndpointRecord

    /// The endpoints of a form that are not deleted (disabled ones included), oldest first.
    func endpoints(formID: String) async throws -> [EndpointRecord]

    /// One endpoint, or `nil` when unknown or deleted.
    func endpoint(id: String) async throws -> EndpointRecord?

    /// Deletes an endpoint; its deliveries not yet sent become `dead`. Returns `false` when unknown.
    func deleteEndpoint(id: String) async throws -> Bool

    /// Makes `newSecretCiphertext` the endpoint's secret and keeps the old one valid until
    /// `previousValidUntil`. Returns `nil` when the endpoint is unknown or deleted.
    func rotateEndpointSecret(id: String, newSecretCiphertext: [UInt8], previousValidUntil: Date) async throws -> EndpointRecord?

    /// Disables an endpoint (for example after a 410); its deliveries not yet sent become `dead`.
    func disableEndpoint(id: String, reason: String) async throws

    // MARK: Deliveries

    /// Leases up to `limit` due deliveries to `owner` for `lease` seconds, oldest due first.
    ///
    /// A delivery is due when it is `pending` or `failed`, its next attempt time has come, and it is
    /// not leased or its lease has expired (a crashed worker's rows come back this way).
    ///
    /// No rows go to `excludingEndpoints`, and at most `roomByEndpoint[id]` to an endpoint listed there
    /// (the worker's per-endpoint in-flight limit minus what it has in flight), counted within the claim.
    func claimDueDeliveries(
        owner: String, limit: Int, now: Date, lease: TimeInterval, excludingEndpoints: Set<String>, roomByEndpoint: [String: Int]
    ) async throws -> [ClaimedDelivery]

    /// Appends an attempt to a delivery, applies its outcome and releases the lease.
    ///
    /// Throws ``StoreError/leaseLost(_:)`` (after keeping the attempt) when another owner has claimed
    /// the delivery since; its state is then left to that owner.
    func recordAttempt(deliveryID: String, owner: String, attempt: AttemptRecord, outcome: DeliveryOutcome) async throws

    /// Releases every lease held by `owner` (on shutdown), so other workers can claim the rows at once.
    func releaseLeases(owner: String) async throws

    /// A page of deliveries, newest first, filtered by status and form.
    func deliveries(status: [DeliveryStatus]?, formID: String?, limit: Int, cursor: String?) async throws -> DeliveryPage

    /// One delivery with all its attempts, oldest first.
    func delivery(id: String) async throws -> DeliveryRecord?

    /// Queues a delivery again: `pending`, due at `now`, unless it is unknown or its endpoint no
    /// longer receives anything.
    func redeliver(id: String, now: Date) async throws -> RedeliveryOutcome

    /// How many deliveries wait to be sent and how long the oldest of them has been waiting.
    func deliveryStats(now: Date) async throws -> (pending: Int, oldestPendingAge: TimeInterval?)

    // MARK: Operations

    /// A cheap read that throws when the database cannot be read (for `/readyz`).
    func ping() async throws

    /// Calls `handler` after each commit that queued new deliveries, so a delivery worker can wake at
    /// once instead of polling eagerly. Replaces any earlier handler.
    func onDeliveriesCreated(_ handler: @escaping @Sendable () -> Void)

    /// Fails what is queued, lets a write in progress finish, and lets go of the database (at
    /// shutdown: the store is not used after it).
    func close()
}

extension FormStore {
    /// Stores a definition as the form's new current version, creating the form if needed.
    public func saveFormVersion(formID: String, definition: String, title: String, contentHash: String) async throws -> SavedVersion {
        try await saveFormVersion(formID: formID, definition: definition, title: title, contentHash: contentHash,
                                  createOnly: false, precondition: nil)
    }

    /// Stores a definition with `createOnly` and no precondition.
    public func saveFormVersion(
        formID: String, definition: String, title: String, contentHash: String, createOnly: Bool
    ) async throws -> SavedVersion {
        try await saveFormVersion(formID: formID, definition: definition, title: title, contentHash: contentHash,
                                  createOnly: createOnly, precondition: nil)
    }

    /// Marks a form deleted, unconditionally.
    public func deleteForm(id: String) async throws -> Bool {
        try await deleteForm(id: id, precondition: nil)
    }

    /// Claims due deliveries to any endpoint.
    public func claimDueDeliveries(owner: String, limit: Int, now: Date, lease: TimeInterval) async throws -> [ClaimedDelivery] {
        try await claimDueDeliveries(owner: owner, limit: limit, now: now, lease: lease, excludingEndpoints: [], roomByEndpoint: [:])
    }

    /// Claims due deliveries, none to `excludingEndpoints`, with no limit per endpoint.
    public func claimDueDeliveries(
        owner: String, limit: Int, now: Date, lease: TimeInterval, excludingEndpoints: Set<String>
    ) async throws -> [ClaimedDelivery] {
        try await claimDueDeliveries(owner: owner, limit: limit, now: now, lease: lease, excludingEndpoints: excludingEndpoints, roomByEndpoint: [:])
    }

    /// Every version of a form, oldest first.
    public func formVersions(id: String) async throws -> [FormVersionSummary] {
        try await formVersions(id: id, after: nil, limit: .max)
    }

    /// Every form that is not deleted, ordered by id.
    public func listForms() async throws -> [FormSummary] {
        try await listForms(after: nil, limit: .max)
    }
}
