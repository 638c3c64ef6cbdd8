import Foundation
import GRDB

/// What ``FormStore/saveFormVersion(formID:definition:title:contentHash:)`` did.
public struct SavedVersion: Sendable, Equatable {
    /// The form's current version after the call.
    public var version: Int
    /// The form did not exist, or was deleted, before the call.
    public var createdForm: Bool
    /// A new version row was written (false when the upload was identical to the current version).
    public var createdVersion: Bool

    public init(version: Int, createdForm: Bool, createdVersion: Bool) {
        self.version = version
        self.createdForm = createdForm
        self.createdVersion = createdVersion
    }
}

/// One stored version of a form's definition, with the state of its form.
public struct FormVersionRecord: Sendable, Equatable, Decodable, StoredRecord {
    /// A row of `form_versions` joined with its form's `current_version` and `deleted_at`.
    enum CodingKeys: String, CodingKey {
        case formID = "form_id", version, definition, contentHash = "content_hash", title, createdAt = "created_at"
        case currentVersion = "current_version", formDeletedAt = "form_deleted_at"
    }

    public var formID: String
    public var version: Int
    /// The definition's JSON text, exactly as saved.
    public var definition: String
    public var contentHash: String
    public var title: String
    public var createdAt: Date
    /// The version the form serves now.
    public var currentVersion: Int
    /// When the form was deleted, if it is.
    public var formDeletedAt: Date?

    public init(
        formID: String, version: Int, definition: String, contentHash: String, title: String,
        createdAt: Date, currentVersion: Int, formDeletedAt: Date?
    ) {
        self.formID = formID
        self.version = version
        self.definition = definition
        self.contentHash = contentHash
        self.title = title
        self.createdAt = createdAt
        self.currentVersion = currentVersion
        self.formDeletedAt = formDeletedAt
    }
}

/// A version in a form's version list.
public struct FormVersionSummary: Sendable, Equatable, Decodable, StoredRecord {
    enum CodingKeys: String, CodingKey {
        case version, title, createdAt = "created_at", contentHash = "content_hash"
    }

    public var version: Int
    public var title: String
    public var createdAt: Date
    public var contentHash: String

    public init(version: Int, title: String, createdAt: Date, contentHash: String) {
        self.version = version
        self.title = title
        self.createdAt = createdAt
        self.contentHash = contentHash
    }
}

/// A form in the admin list.
public struct FormSummary: Sendable, Equatable, Decodable, StoredRecord {
    /// A row of `forms` joined with its current version's title.
    enum CodingKeys: String, CodingKey {
        case id, title, version = "current_version", updatedAt = "updated_at", submissionCount = "submission_count"
    }

    public var id: String
    /// The current version's title.
    public var title: String
    public var version: Int
    public var updatedAt: Date
    public var submissionCount: Int

    public init(id: String, title: String, version: Int, updatedAt: Date, submissionCount: Int) {
        self.id = id
        self.title = title
        self.version = version
        self.updatedAt = updatedAt
        self.submissionCount = submissionCount
    }
}
