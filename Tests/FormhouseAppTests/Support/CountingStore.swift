import FormStore
import Foundation
import Synchronization

/// A real store that counts the reads of one row by id (`submission(id:)`, `endpoint(id:)`,
/// `delivery(id:)`, `upload(id:)`), so that a test sees how often a request reads the row it names.
/// Everything else is passed through as is.
final class CountingStore: FormStore {
    private let base: any FormStore
    private let counts = Mutex<[String: Int]>([:])

    init(_ base: any FormStore) {
        self.base = base
    }

    /// The reads of row `id` since the last ``reset()``.
    func reads(of id: String) -> Int { counts.withLock { $0[id, default: 0] } }

    func reset() { counts.withLock { $0 = [:] } }

    private func count(_ id: String) { counts.withLock { $0[id, default: 0] += 1 } }

    // MARK: Counted

    func submission(id: String) async throws -> SubmissionRecord? {
        count(id)
        return try await base.submission(id: id)
    }

    func endpoint(id: String) async throws -> EndpointRecord? {
        count(id)
        return try await base.endpoint(id: id)
    }

    func delivery(id: String) async throws -> DeliveryRecord? {
        count(id)
        return try await base.delivery(id: id)
    }

    func upload(id: String) async throws -> UploadRecord? {
        count(id)
        return try await base.upload(id: id)
    }

    // MARK: Forms

    func saveFormVersion(
        formID: String, definition: String, title: String, contentHash: String, createOnly: Bool,
        precondition: (@Sendable (Int?) -> Bool)?, audit: AuditNote?
    ) async throws -> SavedVersion {
        try await base.saveFormVersion(formID: formID, definition: definition, title: title, contentHash: contentHash,
                                       createOnly: createOnly, precondition: precondition, audit: audit)
    }

    func currentForm(id: String) async throws -> FormVersionRecord? { try await base.currentForm(id: id) }

    func formVersion(id: String, version: Int) async throws -> FormVersionRecord? { try await base.formVersion(id: id, version: version) }

    func formVersions(id: String, after: Int?, limit: Int) async throws -> [FormVersionSummary] {
        try await base.formVersions(id: id, after: after, limit: limit)
    }

    func listForms(after: String?, limit: Int) async throws -> [FormSummary] { try await base.listForms(after: after, limit: limit) }

    func deleteForm(id: String, precondition: (@Sendable (Int?) -> Bool)?, audit: AuditNote?) async throws -> Bool {
        try await base.deleteForm(id: id, precondition: precondition, audit: audit)
    }

    func formExists(id: String, includingDeleted: Bool) async throws -> Bool { try await base.formExists(id: id, includingDeleted: includingDeleted) }

    // MARK: Submissions

    func insertSubmission(_ submission: consuming NewSubmission) async throws -> InsertOutcome { try await base.insertSubmission(submission) }

    func submission(formID: String, idempotencyKey: String) async throws -> SubmissionRecord? {
        try await base.submission(formID: formID, idempotencyKey: idempotencyKey)
    }

    func submissions(
        formID: String, past cursor: SubmissionCursor?, order: SubmissionOrder, limit: Int, maxValueBytes: Int
    ) async throws -> (records: [SubmissionRecord], more: Bool) {
        try await base.submissions(formID: formID, past: cursor, order: order, limit: limit, maxValueBytes: maxValueBytes)
    }

    // MARK: Uploads

    func createUpload(_ upload: UploadRecord) async throws { try await base.createUpload(upload) }

    func uploads(ids: [String]) async throws -> [UploadRecord] { try await base.uploads(ids: ids) }

    func uploads(submissionID: String) async throws -> [UploadRecord] { try await base.uploads(submissionID: submissionID) }

    func recordProgress(id: String, from: Int, to: Int) async throws -> Bool { try await base.recordProgress(id: id, from: from, to: to) }

    func completeUpload(id: String, size: Int, sha256: String, contentType: String) async throws {
        try await base.completeUpload(id: id, size: size, sha256: sha256, contentType: contentType)
    }

    func deleteUnboundUpload(id: String) async throws -> Bool { try await base.deleteUnboundUpload(id: id) }

    func expiredUploads(before date: Date, limit: Int) async throws -> [UploadRecord] { try await base.expiredUploads(before: date, limit: limit) }

    func incompleteUploadCount(clientAddress: String?, since: Date) async throws -> Int {
        try await base.incompleteUploadCount(clientAddress: clientAddress, since: since)
    }

    // MARK: Drafts

    func createDraft(_ draft: DraftRecord, uploadIDs: [String], maxPerClientPerHour: Int) async throws {
        try await base.createDraft(draft, uploadIDs: uploadIDs, maxPerClientPerHour: maxPerClientPerHour)
    }

    func draft(id: String) async throws -> DraftRecord? { try await base.draft(id: id) }

    func updateDraft(_ change: DraftChange) async throws -> DraftUpdateOutcome { try await base.updateDraft(change) }

    func deleteDraft(id: String) async throws -> Bool { try await base.deleteDraft(id: id) }

    func deleteExpiredDrafts(before date: Date, limit: Int) async throws -> Int { try await base.deleteExpiredDrafts(before: date, limit: limit) }

    // MARK: Webhooks

    func createEndpoint(_ endpoint: NewEndpoint, audit: AuditNote?) async throws -> EndpointRecord { try await base.createEndpoint(endpoint, audit: audit) }

    func endpoints(formID: String) async throws -> [EndpointRecord] { try await base.endpoints(formID: formID) }

    func deleteEndpoint(id: String, audit: AuditNote?) async throws -> Bool { try await base.deleteEndpoint(id: id, audit: audit) }

    func rotateEndpointSecret(
        id: String, newSecretCiphertext: [UInt8], previousValidUntil: Date, audit: AuditNote?
    ) async throws -> EndpointRecord? {
        try await base.rotateEndpointSecret(id: id, newSecretCiphertext: newSecretCiphertext, previousValidUntil: previousValidUntil, audit: audit)
    }

    func disableEndpoint(id: String, reason: String) async throws { try await base.disableEndpoint(id: id, reason: reason) }

    func claimDueDeliveries(
        owner: String, limit: Int, now: Date, lease: TimeInterval, excludingEndpoints: Set<String>, roomByEndpoint: [String: Int]
    ) async throws -> [ClaimedDelivery] {
        try await base.claimDueDeliveries(owner: owner, limit: limit, now: now, lease: lease,
                                          excludingEndpoints: excludingEndpoints, roomByEndpoint: roomByEndpoint)
    }

    func recordAttempt(deliveryID: String, owner: String, attempt: AttemptRecord, outcome: DeliveryOutcome) async throws {
        try await base.recordAttempt(deliveryID: deliveryID, owner: owner, attempt: attempt, outcome: outcome)
    }

    func releaseLeases(owner: String) async throws { try await base.releaseLeases(owner: owner) }

    func deliveries(
        status: [DeliveryStatus]?, formID: String?, before position: (createdAtMilliseconds: Int64, id: String)?, limit: Int
    ) async throws -> [DeliveryRecord] {
        try await base.deliveries(status: status, formID: formID, before: position, limit: limit)
    }

    func redeliver(id: String, now: Date, audit: AuditNote?) async throws -> RedeliveryOutcome { try await base.redeliver(id: id, now: now, audit: audit) }

    func deliveryStats(now: Date) async throws -> (pending: Int, oldestPendingAge: TimeInterval?) { try await base.deliveryStats(now: now) }

    // MARK: Stats, retention, audit, operations

    func recordRejection(_ rejection: Rejection) async throws { try await base.recordRejection(rejection) }

    func stats(formID: String, from: Int, through: Int) async throws -> FormStats { try await base.stats(formID: formID, from: from, through: through) }

    func deleteSubmissions(formID: String, receivedBefore date: Date, limit: Int) async throws -> DeletedSubmissions {
        try await base.deleteSubmissions(formID: formID, receivedBefore: date, limit: limit)
    }

    func formsHoldingSubmissions() async throws -> [(id: String, currentVersion: Int)] { try await base.formsHoldingSubmissions() }

    func eraseSubmissions(ids: [String], formID: String, audit: AuditNote?) async throws -> DeletedSubmissions {
        try await base.eraseSubmissions(ids: ids, formID: formID, audit: audit)
    }

    func scrubDeletedData() async throws { try await base.scrubDeletedData() }

    func auditEntries(_ query: AuditQuery) async throws -> [AuditEntry] { try await base.auditEntries(query) }

    func ping() async throws { try await base.ping() }

    func onDeliveriesCreated(_ handler: @escaping @Sendable () -> Void) { base.onDeliveriesCreated(handler) }

    func onFormChanged(_ handler: @escaping @Sendable (_ formID: String) -> Void) { base.onFormChanged(handler) }

    func close() { base.close() }
}
