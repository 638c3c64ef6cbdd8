import Foundation

/// A draft: a form's answers saved before they are complete, resumed with its token on any device.
/// Dates are stored with millisecond precision.
public struct DraftRecord: Sendable, Equatable {
    /// `drf_…`, made by the caller.
    public var id: String
    public var formID: String
    /// The version the draft was started on: it is submitted against that version.
    public var formVersion: Int
    /// The lowercase hex SHA-256 of the draft's token: the token itself is never stored.
    public var tokenHash: String
    /// 1 when created, one more with each accepted change.
    public var revision: Int
    /// The values' JSON text.
    public var values: String
    public var clientAddress: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// After this the draft is as good as gone; the sweeper deletes it.
    public var expiresAt: Date
    /// The submission it became, once submitted: a submitted draft takes no more changes.
    public var submissionID: String?

    public init(
        id: String, formID: String, formVersion: Int, tokenHash: String, revision: Int, values: String,
        clientAddress: String?, createdAt: Date, updatedAt: Date, expiresAt: Date, submissionID: String? = nil
    ) {
        self.id = id
        self.formID = formID
        self.formVersion = formVersion
        self.tokenHash = tokenHash
        self.revision = revision
        self.values = values
        self.clientAddress = clientAddress
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.expiresAt = expiresAt
        self.submissionID = submissionID
    }
}

/// A change to a draft's values, applied only to the revision it was made from.
public struct DraftChange: Sendable, Equatable {
    public var id: String
    /// The revision the change was made from; the stored draft must still be at it.
    public var expectedRevision: Int
    /// The new values' JSON text, whole.
    public var values: String
    /// The uploads the new values name: kept at least as long as the draft (see ``DraftStore``).
    public var uploadIDs: [String]
    public var updatedAt: Date
    public var expiresAt: Date
    /// When the draft's unbound uploads that `uploadIDs` no longer names expire: they are let go.
    public var releasedUploadsExpireAt: Date

    public init(
        id: String, expectedRevision: Int, values: String, uploadIDs: [String], updatedAt: Date, expiresAt: Date,
        releasedUploadsExpireAt: Date
    ) {
        self.id = id
        self.expectedRevision = expectedRevision
        self.values = values
        self.uploadIDs = uploadIDs
        self.updatedAt = updatedAt
        self.expiresAt = expiresAt
        self.releasedUploadsExpireAt = releasedUploadsExpireAt
    }
}

/// What ``DraftStore/updateDraft(_:)`` did.
public enum DraftUpdateOutcome: Sendable, Equatable {
    /// Stored: the draft as it now is (its revision one more than the expected one).
    case updated(DraftRecord)
    /// Nothing changed: the stored draft is at another revision (another device saved first).
    case revisionMismatch(current: DraftRecord)
    /// Nothing changed: the draft was submitted and takes no more changes.
    case submitted(current: DraftRecord)
    /// There is no such draft (never was, deleted or swept).
    case notFound
}

extension Date {
    /// The clock hour this instant falls in, as hours since 1970 (its stored milliseconds / 3 600 000):
    /// the hour a draft created at it counts against its client's hourly limit.
    public var draftStartHour: Int64 {
        storedMilliseconds / 3_600_000
    }
}
