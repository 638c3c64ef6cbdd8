import FormStore
import Foundation
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

    /// With `fullURL` false (a caller below editor, who may not list webhooks), `url` is the scheme and
    /// host only: a webhook URL's path or query is often a secret of its own.
    init(_ delivery: DeliveryRecord, withAttemptLog: Bool = false, fullURL: Bool = true) {
        id = delivery.id
        endpointId = delivery.endpointID
        let shown = AddressPolicy.withoutCredentials(delivery.endpointURL)
        url = fullURL ? shown : Self.origin(of: shown)
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

extension DeliveryJSON {
    /// `scheme://host[:port]/` of a URL, or nothing of it when it does not parse.
    static func origin(of url: String) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host else { return "" }
        let port = components.port.map { ":\($0)" } ?? ""
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed)\(port)/"
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
