import Foundation
import GRDB

/// A webhook endpoint to add to a form.
public struct NewEndpoint: Sendable {
    /// The endpoint to store: enabled, with no previous secret.
    public var record: EndpointRecord
    /// The most endpoints (not deleted) the form may have with this one, checked in the insert's
    /// transaction so that concurrent creations cannot pass it; nil for no limit.
    public var maxPerForm: Int?

    /// `secretCiphertext` is the signing secret, encrypted by the caller; the store never sees it in clear.
    public init(
        id: String = RandomID.make(prefix: "ep_"), formID: String, url: String, secretCiphertext: [UInt8],
        createdAt: Date = Date(), maxPerForm: Int? = nil
    ) {
        record = EndpointRecord(
            id: id, formID: formID, url: url, secretCiphertext: secretCiphertext, previousSecretCiphertext: nil,
            previousSecretExpiresAt: nil, disabledAt: nil, disabledReason: nil, createdAt: createdAt)
        self.maxPerForm = maxPerForm
    }
}

/// A stored webhook endpoint.
public struct EndpointRecord: Sendable, Equatable {
    public var id: String
    public var formID: String
    public var url: String
    /// The signing secret, encrypted by the caller.
    public var secretCiphertext: [UInt8]
    /// The secret before the last rotation, still used to sign until ``previousSecretExpiresAt``.
    public var previousSecretCiphertext: [UInt8]?
    public var previousSecretExpiresAt: Date?
    public var disabledAt: Date?
    public var disabledReason: String?
    public var createdAt: Date

    public init(
        id: String, formID: String, url: String, secretCiphertext: [UInt8], previousSecretCiphertext: [UInt8]?,
        previousSecretExpiresAt: Date?, disabledAt: Date?, disabledReason: String?, createdAt: Date
    ) {
        self.id = id
        self.formID = formID
        self.url = url
        self.secretCiphertext = secretCiphertext
        self.previousSecretCiphertext = previousSecretCiphertext
        self.previousSecretExpiresAt = previousSecretExpiresAt
        self.disabledAt = disabledAt
        self.disabledReason = disabledReason
        self.createdAt = createdAt
    }
}

extension EndpointRecord: StoredRecord, PersistableRecord {
    public static let databaseTableName = "webhook_endpoints"

    /// The columns of `webhook_endpoints` (`deleted_at` is the store's, not the record's).
    public enum Columns {
        static let id = Column("id")
        static let formID = Column("form_id")
        static let url = Column("url")
        static let secretCiphertext = Column("secret_ciphertext")
        static let previousSecretCiphertext = Column("previous_secret_ciphertext")
        static let previousSecretExpiresAt = Column("previous_secret_expires_at")
        static let disabledAt = Column("disabled_at")
        static let disabledReason = Column("disabled_reason")
        static let createdAt = Column("created_at")
    }

    /// Read by hand: the secrets are blobs (see ``StoredRecord``).
    public init(row: Row) {
        self.init(
            id: row[Columns.id], formID: row[Columns.formID], url: row[Columns.url],
            secretCiphertext: [UInt8](row[Columns.secretCiphertext] as Data),
            previousSecretCiphertext: (row[Columns.previousSecretCiphertext] as Data?).map { [UInt8]($0) },
            previousSecretExpiresAt: (row[Columns.previousSecretExpiresAt] as Int64?).map(Date.init(storedMilliseconds:)),
            disabledAt: (row[Columns.disabledAt] as Int64?).map(Date.init(storedMilliseconds:)),
            disabledReason: row[Columns.disabledReason], createdAt: Date(storedMilliseconds: row[Columns.createdAt]))
    }

    public func encode(to container: inout PersistenceContainer) {
        container[Columns.id] = id
        container[Columns.formID] = formID
        container[Columns.url] = url
        container[Columns.secretCiphertext] = Data(secretCiphertext)
        container[Columns.previousSecretCiphertext] = previousSecretCiphertext.map { Data($0) }
        container[Columns.previousSecretExpiresAt] = previousSecretExpiresAt?.storedMilliseconds
        container[Columns.disabledAt] = disabledAt?.storedMilliseconds
        container[Columns.disabledReason] = disabledReason
        container[Columns.createdAt] = createdAt.storedMilliseconds
    }
}

/// A delivery leased to a worker, with everything needed to send it.
public struct ClaimedDelivery: Sendable, Equatable {
    /// The `msg_…` id, sent as `webhook-id`.
    public var id: String
    public var endpointID: String
    public var submissionID: String
    public var formID: String
    public var url: String
    public var secretCiphertext: [UInt8]
    /// Set while a rotated-out secret is still valid at claim time.
    public var previousSecretCiphertext: [UInt8]?
    public var previousSecretExpiresAt: Date?
    public var payload: [UInt8]
    /// Attempts made before this one.
    public var attempts: Int
    public var createdAt: Date
    public var leaseExpiresAt: Date

    public init(
        id: String, endpointID: String, submissionID: String, formID: String, url: String,
        secretCiphertext: [UInt8], previousSecretCiphertext: [UInt8]?, previousSecretExpiresAt: Date?,
        payload: [UInt8], attempts: Int, createdAt: Date, leaseExpiresAt: Date
    ) {
        self.id = id
        self.endpointID = endpointID
        self.submissionID = submissionID
        self.formID = formID
        self.url = url
        self.secretCiphertext = secretCiphertext
        self.previousSecretCiphertext = previousSecretCiphertext
        self.previousSecretExpiresAt = previousSecretExpiresAt
        self.payload = payload
        self.attempts = attempts
        self.createdAt = createdAt
        self.leaseExpiresAt = leaseExpiresAt
    }
}

/// One try at sending a delivery.
public struct AttemptRecord: Sendable, Equatable, Decodable, StoredRecord {
    /// A row of `delivery_attempts`.
    enum CodingKeys: String, CodingKey {
        case attemptedAt = "attempted_at", statusCode = "status_code", durationMilliseconds = "duration_ms", error
        case responseExcerpt = "response_excerpt"
    }

    public var attemptedAt: Date
    /// The receiver's HTTP status, `nil` when no answer came (timeout, connection error).
    public var statusCode: Int?
    public var durationMilliseconds: Int
    public var error: String?
    /// A bounded start of the response body.
    public var responseExcerpt: String?

    public init(attemptedAt: Date, statusCode: Int?, durationMilliseconds: Int, error: String?, responseExcerpt: String?) {
        self.attemptedAt = attemptedAt
        self.statusCode = statusCode
        self.durationMilliseconds = durationMilliseconds
        self.error = error
        self.responseExcerpt = responseExcerpt
    }
}

/// What happens to a delivery after an attempt.
public enum DeliveryOutcome: Sendable, Equatable {
    /// Delivered: status `succeeded`.
    case succeeded
    /// Try again at this time: status `failed`.
    case retry(at: Date)
    /// Give up: status `dead` (a manual redeliver can queue it again).
    case dead

    /// The status a delivery in `current` takes after an attempt with this outcome; nil when it keeps
    /// `current`, as a retry or dead outcome does not reopen a delivery that was ended meanwhile.
    public func status(after current: DeliveryStatus) -> DeliveryStatus? {
        switch self {
        case .succeeded: .succeeded
        case .retry: current.isOpen ? .failed : nil
        case .dead: current.isOpen ? .dead : nil
        }
    }

    /// When the next attempt is due after a retry; nil for the other outcomes, which keep the delivery's time.
    public var retryAt: Date? {
        if case .retry(let at) = self { at } else { nil }
    }
}

/// What asking for a delivery to be sent again came to.
public enum RedeliveryOutcome: Sendable, Equatable {
    /// Pending again, due now.
    case queued
    case unknownDelivery
    /// Its endpoint no longer receives anything: disabled (after a 410) or deleted. Nothing changed.
    case endpointDisabled(endpointID: String)
    case endpointDeleted(endpointID: String)
    /// An attempt is being sent under a lease that runs until `leaseExpiresAt`. Nothing changed: the
    /// attempt's result, recorded when it ends, would overwrite the request.
    case inFlight(leaseExpiresAt: Date)
}

/// The states a delivery goes through, stored as their raw values.
public enum DeliveryStatus: String, Sendable, CaseIterable, Codable, DatabaseValueConvertible {
    /// Waiting for its first attempt, or queued again by a redeliver.
    case pending
    /// A receiver acknowledged it.
    case succeeded
    /// An attempt failed; another is due at its next attempt time.
    case failed
    /// Given up on (attempts exhausted, endpoint gone); only a redeliver queues it again.
    case dead

    /// Still to be sent: the states a worker claims. The SQL spells this set out as
    /// `status IN ('pending', 'failed')`, literally, because that is the partial index's predicate
    /// (`deliveries_due`) and SQLite uses a partial index only for a query whose terms match it;
    /// a test keeps the schema's sets and these cases equal.
    public var isOpen: Bool { self == .pending || self == .failed }
}

/// A delivery as the admin sees it.
public struct DeliveryRecord: Sendable, Equatable, Decodable, StoredRecord {
    /// A row of `deliveries` joined with its endpoint's `url`; the attempts are read on their own.
    enum CodingKeys: String, CodingKey {
        case id, endpointID = "endpoint_id", endpointURL = "url", submissionID = "submission_id", formID = "form_id", status
        case attemptCount = "attempts", nextAttemptAt = "next_attempt_at", createdAt = "created_at", updatedAt = "updated_at"
        case lastStatusCode = "last_status_code", lastError = "last_error"
    }

    public var id: String
    public var endpointID: String
    public var endpointURL: String
    public var submissionID: String
    public var formID: String
    public var status: DeliveryStatus
    /// Attempts made so far, manual redeliveries included.
    public var attemptCount: Int
    public var nextAttemptAt: Date
    public var createdAt: Date
    public var updatedAt: Date
    public var lastStatusCode: Int?
    public var lastError: String?
    /// Every attempt, oldest first; empty in lists.
    public var attempts: [AttemptRecord] = []

    public init(
        id: String, endpointID: String, endpointURL: String, submissionID: String, formID: String, status: DeliveryStatus,
        attemptCount: Int, nextAttemptAt: Date, createdAt: Date, updatedAt: Date, lastStatusCode: Int?,
        lastError: String?, attempts: [AttemptRecord]
    ) {
        self.id = id
        self.endpointID = endpointID
        self.endpointURL = endpointURL
        self.submissionID = submissionID
        self.formID = formID
        self.status = status
        self.attemptCount = attemptCount
        self.nextAttemptAt = nextAttemptAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastStatusCode = lastStatusCode
        self.lastError = lastError
        self.attempts = attempts
    }
}

/// A page of deliveries, newest first.
public struct DeliveryPage: Sendable, Equatable {
    public var items: [DeliveryRecord]
    /// An opaque token for the next page; `nil` on the last page.
    public var nextCursor: String?

    public init(items: [DeliveryRecord], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }
}
