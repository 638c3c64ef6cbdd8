import FormStore
import Foundation
import Synchronization
import Webhooks

/// The webhook worker's outbox, backed by the store's deliveries table. Secrets, and the payloads of
/// forms with sensitive inputs, are decrypted only here, at claim time, for the request being signed.
struct StoreDeliveryQueue: DeliveryQueue {
    let store: any FormStore
    let secrets: SecretBox
    let sensitive: SensitiveValues
    /// The worker's lease owner (the store checks it when an attempt is recorded).
    let owner: String
    /// Deliveries in flight whose payload held sealed values: a receiver may echo its request, and the
    /// excerpt of its answer would then keep those values in clear in the attempt log.
    private let sealedInFlight = SealedInFlight()

    init(store: any FormStore, secrets: SecretBox, sensitive: SensitiveValues, owner: String) {
        self.store = store
        self.secrets = secrets
        self.sensitive = sensitive
        self.owner = owner
    }

    /// Honours the worker's exclusions and per-endpoint rooms, so slow endpoints cannot take the slots
    /// fast ones need and no endpoint gets more than its in-flight limit.
    func claimDue(
        owner: String, limit: Int, now: Date, lease: TimeInterval, excludingEndpoints: Set<String>, roomByEndpoint: [String: Int]
    ) async throws -> [DeliveryJob] {
        let claimed = try await store.claimDueDeliveries(
            owner: owner, limit: limit, now: now, lease: lease, excludingEndpoints: excludingEndpoints, roomByEndpoint: roomByEndpoint)
        // Each row on its own: these rows are already leased, so one secret that does not open must
        // not throw the whole claim away (its rows would wait out the lease, again and again).
        return claimed.map { row in
            // Sealed with the endpoint id as context: a ciphertext moved to another row does not open.
            guard let current = try? secrets.open(String(decoding: row.secretCiphertext, as: UTF8.self), context: row.endpointID) else {
                return DeliveryJob(id: row.id, endpointID: row.endpointID, url: row.url, secrets: [],
                                   payload: row.payload, attempt: row.attempts + 1, signingProblem: Self.unreadableSecret)
            }
            // Opened before signing, so the receiver gets the values in clear and the signature covers them.
            var payload = row.payload
            do {
                if let opened = try sensitive.openedIfSealed(row.payload, .webhookPayload, rowID: row.submissionID) {
                    payload = opened
                    sealedInFlight.insert(row.id)
                }
            } catch {
                return DeliveryJob(id: row.id, endpointID: row.endpointID, url: row.url, secrets: [],
                                   payload: row.payload, attempt: row.attempts + 1, signingProblem: Self.unreadablePayload)
            }
            var keys = [current]
            if let previous = row.previousSecretCiphertext, let until = row.previousSecretExpiresAt, until > now,
               let old = try? secrets.open(String(decoding: previous, as: UTF8.self), context: row.endpointID) {
                keys.append(old)
            }
            return DeliveryJob(id: row.id, endpointID: row.endpointID, url: row.url, secrets: keys,
                               payload: payload, attempt: row.attempts + 1)
        }
    }

    static let unreadableSecret = "The endpoint's signing secret does not decrypt with this server's key "
        + "(was secret.key or FORMHOUSE_SECRET_KEY changed?); restore that key, or rotate the endpoint's secret."

    static let excerptNotKept = "(not kept: the request held values of sensitive inputs, which an answer may echo)"

    static let unreadablePayload = "The payload holds sensitive values sealed with another server key "
        + "(was secret.key or FORMHOUSE_SECRET_KEY changed?); restore that key to deliver it."

    func record(_ job: DeliveryJob, attempt: DeliveryAttempt, outcome: Webhooks.DeliveryOutcome) async throws {
        let excerpt = sealedInFlight.remove(job.id) ? Self.excerptNotKept : attempt.responseExcerpt
        let record = AttemptRecord(
            attemptedAt: attempt.startedAt, statusCode: attempt.status, durationMilliseconds: attempt.milliseconds,
            error: attempt.error?.description, responseExcerpt: excerpt.isEmpty ? nil : excerpt)
        // The store's outcome type shares its name with the worker's, so it is only ever inferred here.
        switch outcome {
        case .succeeded:
            try await store.recordAttempt(deliveryID: job.id, owner: owner, attempt: record, outcome: .succeeded)
        case .retry(let at):
            try await store.recordAttempt(deliveryID: job.id, owner: owner, attempt: record, outcome: .retry(at: at))
        case .dead, .endpointDisabled:
            try await store.recordAttempt(deliveryID: job.id, owner: owner, attempt: record, outcome: .dead)
        }
    }

    func releaseLeases(owner: String) async throws {
        try await store.releaseLeases(owner: owner)
    }

    /// An endpoint deleted meanwhile (a 410 arriving after the admin removed it) has nothing left to
    /// disable; that is not a failure to record the attempt.
    func disableEndpoint(id: String, reason: String) async throws {
        do {
            try await store.disableEndpoint(id: id, reason: reason)
        } catch StoreError.notFound {
            return
        }
    }
}

/// The ids of deliveries in flight whose payload was sealed, from claim to record.
private final class SealedInFlight: Sendable {
    private let ids = Mutex<Set<String>>([])

    func insert(_ id: String) { ids.withLock { _ = $0.insert(id) } }

    /// Whether `id` was in flight with a sealed payload; it is no longer.
    func remove(_ id: String) -> Bool { ids.withLock { $0.remove(id) != nil } }
}
