import FormStore
import Webhooks

/// A webhook endpoint as the admin API shows it; its `secret` only when it was just made, and
/// `previousSecretExpiresAt` only when it was just rotated.
struct EndpointJSON: Encodable {
    var id: String
    var formId: String
    var url: String
    var createdAt: String
    var disabled: Bool
    @NullWhenNil var disabledReason: String?
    var secret: String?
    var previousSecretExpiresAt: String?

    init(_ endpoint: EndpointRecord, secret: String? = nil, previousSecretExpiresAt: String? = nil) {
        id = endpoint.id
        formId = endpoint.formID
        url = AddressPolicy.withoutCredentials(endpoint.url)
        createdAt = Timestamp.rfc3339(endpoint.createdAt)
        disabled = endpoint.disabledAt != nil
        disabledReason = endpoint.disabledReason
        self.secret = secret
        self.previousSecretExpiresAt = previousSecretExpiresAt
    }
}

/// A form's webhook endpoints.
struct EndpointListJSON: Encodable {
    var items: [EndpointJSON]
}

/// A delivery as the admin API shows it; alone, with its `attemptLog`.
struct DeliveryJSON: Encodable {
    var id: String
    var endpointId: String
    var url: String
    var submissionId: String
    var formId: String
    var status: String
    var attempts: Int
    /// Only while the delivery is open: a finished one has no next attempt.
    @NullWhenNil var nextAttemptAt: String?
    @NullWhenNil var lastStatusCode: Int?
    @NullWhenNil var lastError: String?
    var createdAt: String
    var attemptLog: [DeliveryAttemptJSON]?

    init(_ delivery: DeliveryRecord, withAttemptLog: Bool = false) {
        id = delivery.id
        endpointId = delivery.endpointID
        url = AddressPolicy.withoutCredentials(delivery.endpointURL)
        submissionId = delivery.submissionID
        formId = delivery.formID
        status = delivery.status.rawValue
        attempts = delivery.attemptCount
        nextAttemptAt = delivery.status.isOpen ? Timestamp.rfc3339(delivery.nextAttemptAt) : nil
        lastStatusCode = delivery.lastStatusCode
        lastError = delivery.lastError
        createdAt = Timestamp.rfc3339(delivery.createdAt)
        if withAttemptLog { attemptLog = delivery.attempts.map(DeliveryAttemptJSON.init) }
    }
}

/// One attempt in a delivery's `attemptLog`.
struct DeliveryAttemptJSON: Encodable {
    var attemptedAt: String
    @NullWhenNil var statusCode: Int?
    var durationMs: Int
    @NullWhenNil var error: String?
    @NullWhenNil var responseExcerpt: String?

    init(_ attempt: AttemptRecord) {
        attemptedAt = Timestamp.rfc3339(attempt.attemptedAt)
        statusCode = attempt.statusCode
        durationMs = attempt.durationMilliseconds
        error = attempt.error
        responseExcerpt = attempt.responseExcerpt
    }
}
