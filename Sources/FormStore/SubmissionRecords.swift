import Foundation
import GRDB

/// A validated submission to store: the row, and how to build the body its webhooks are sent.
public struct NewSubmission: Sendable {
    /// The row to store; its received time is stored with millisecond precision.
    public var record: SubmissionRecord
    /// The uploads its values name, bound to it in its transaction; each id counts once.
    public var uploadIDs: [String]
    /// The draft it is submitted from, closed in its transaction (see ``InsertOutcome/draftSubmitted(existing:)``).
    /// The draft's unbound uploads that ``uploadIDs`` does not name are let go, expiring at the
    /// submission's `receivedAt`.
    public var draftID: String?
    /// The revision of the draft the submission was made from. When set, the draft is closed only if it
    /// is still at it: a draft open at another revision (changed since it was read) fails the submission
    /// with ``StoreError/conflict(_:)``, nothing of it stored. When nil, the draft is closed at any revision.
    public var draftRevision: Int?
    /// Builds the body sent to each of the form's webhook endpoints. Called only when the form has
    /// endpoints at the moment the submission is stored, so a form without any pays nothing for it.
    public var makeWebhookPayload: @Sendable () -> [UInt8]

    /// The body sent to each of the form's webhook endpoints.
    public var webhookPayload: [UInt8] { makeWebhookPayload() }

    public init(
        _ record: SubmissionRecord, uploadIDs: [String] = [], draftID: String? = nil, draftRevision: Int? = nil,
        webhookPayload: @escaping @Sendable () -> [UInt8]
    ) {
        self.record = record
        self.uploadIDs = uploadIDs
        self.draftID = draftID
        self.draftRevision = draftRevision
        makeWebhookPayload = webhookPayload
    }
}

/// A stored submission.
public struct SubmissionRecord: Sendable, Equatable {
    public var id: String
    public var formID: String
    public var formVersion: Int
    public var receivedAt: Date
    /// The normalized values' JSON text.
    public var values: String
    /// The request body exactly as received.
    public var rawBody: [UInt8]
    public var idempotencyKey: String?
    public var bodyHash: String?
    public var clientAddress: String?

    public init(
        id: String, formID: String, formVersion: Int, receivedAt: Date, values: String, rawBody: [UInt8],
        idempotencyKey: String?, bodyHash: String?, clientAddress: String?
    ) {
        self.id = id
        self.formID = formID
        self.formVersion = formVersion
        self.receivedAt = receivedAt
        self.values = values
        self.rawBody = rawBody
        self.idempotencyKey = idempotencyKey
        self.bodyHash = bodyHash
        self.clientAddress = clientAddress
    }
}

extension SubmissionRecord: StoredRecord {
    /// The columns of `submissions`.
    enum Columns {
        static let id = Column("id")
        static let formID = Column("form_id")
        static let formVersion = Column("form_version")
        static let receivedAt = Column("received_at")
        static let values = Column("values")
        static let rawBody = Column("raw_body")
        static let idempotencyKey = Column("idempotency_key")
        static let bodyHash = Column("body_hash")
        static let clientAddress = Column("client_address")
    }

    /// Read by hand: `rawBody` is a blob (see ``StoredRecord``).
    public init(row: Row) {
        self.init(
            id: row[Columns.id], formID: row[Columns.formID], formVersion: row[Columns.formVersion],
            receivedAt: Date(storedMilliseconds: row[Columns.receivedAt]), values: row[Columns.values],
            rawBody: [UInt8](row[Columns.rawBody] as Data), idempotencyKey: row[Columns.idempotencyKey],
            bodyHash: row[Columns.bodyHash], clientAddress: row[Columns.clientAddress])
    }
}

/// What ``FormStore/insertSubmission(_:)`` did.
public enum InsertOutcome: Sendable, Equatable {
    /// The submission is durably stored, as given (its received time at whole milliseconds). The caller
    /// already holds it, so it is not handed back: a copy would cost the writer a retain per field of
    /// every row, and the caller the matching releases.
    case inserted
    /// A submission with the same form and idempotency key was already stored; nothing new was written.
    case duplicate(existing: SubmissionRecord)
    /// Nothing was stored: the uploads with these ids, in the order named, are unknown, not complete,
    /// of another form, or bound to a submission already.
    case uploadsUnavailable([String])
    /// Nothing was stored: the draft it names was submitted already, as this stored submission. A
    /// draft that does not exist (deleted, swept) fails with ``StoreError/notFound(_:)`` instead.
    case draftSubmitted(existing: SubmissionRecord)
}

/// A position in a form's submission list: the last row of a page.
///
/// Its ``token`` is an opaque base64url string for clients; ``init(token:)`` reads it back.
public struct SubmissionCursor: Sendable, Equatable {
    /// Milliseconds since 1970 of the row's received time.
    public var receivedAtMilliseconds: Int64
    public var id: String

    public init(receivedAtMilliseconds: Int64, id: String) {
        self.receivedAtMilliseconds = receivedAtMilliseconds
        self.id = id
    }

    /// The position of `record`.
    public init(_ record: SubmissionRecord) {
        self.init(receivedAtMilliseconds: record.receivedAt.storedMilliseconds, id: record.id)
    }

    /// Reads a token made by ``token``; `nil` when it is not one.
    public init?(token: String) {
        guard let (milliseconds, id) = CursorToken.decode(token) else { return nil }
        self.init(receivedAtMilliseconds: milliseconds, id: id)
    }

    /// The opaque form handed to clients.
    public var token: String {
        CursorToken.encode(milliseconds: receivedAtMilliseconds, id: id)
    }
}

/// A page of submissions, newest first.
public struct SubmissionPage: Sendable, Equatable {
    public var items: [SubmissionRecord]
    /// Where the next page starts; `nil` on the last page.
    public var nextCursor: SubmissionCursor?

    public init(items: [SubmissionRecord], nextCursor: SubmissionCursor?) {
        self.items = items
        self.nextCursor = nextCursor
    }
}
