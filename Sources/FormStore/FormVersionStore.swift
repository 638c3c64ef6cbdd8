/// Forms and their versions.
public protocol FormVersionStore: Sendable {
    /// Stores a definition as the form's new current version.
    ///
    /// An upload whose `contentHash` equals the current version's keeps that version. A deleted form is
    /// brought back with a new version. With `createOnly`, a form that exists (not deleted) is left as
    /// it is and ``StoreError/conflict(_:)`` is thrown, decided in the same transaction. A
    /// `precondition` is given the live current version (nil for an unknown or deleted form) in that
    /// transaction; when it returns false nothing is stored and ``StoreError/preconditionFailed(currentVersion:)``
    /// is thrown. A new version stored is recorded in the audit log with `audit`, when given, in the
    /// same transaction (versions before and after); a save that stores nothing records nothing.
    func saveFormVersion(
        formID: String, definition: String, title: String, contentHash: String, createOnly: Bool,
        precondition: (@Sendable (Int?) -> Bool)?, audit: AuditNote?
    ) async throws -> SavedVersion

    /// The current version of a form, or `nil` when the form is unknown or deleted.
    func currentForm(id: String) async throws -> FormVersionRecord?

    /// Any version of a form, even of a deleted one (see ``FormVersionRecord/formDeletedAt``).
    func formVersion(id: String, version: Int) async throws -> FormVersionRecord?

    /// A form's versions, oldest first: at most `limit` of them, those after version `after` when given.
    func formVersions(id: String, after: Int?, limit: Int) async throws -> [FormVersionSummary]

    /// The forms that are not deleted, ordered by id: at most `limit` of them, those whose id sorts
    /// after `after` (by binary text order) when given.
    func listForms(after: String?, limit: Int) async throws -> [FormSummary]

    /// Marks a form deleted; its versions and submissions are kept. Returns `false` when it was unknown
    /// or already deleted. A `precondition` is checked as for ``saveFormVersion(formID:definition:title:contentHash:createOnly:precondition:audit:)``;
    /// a deletion is recorded with `audit` as a save is.
    func deleteForm(id: String, precondition: (@Sendable (Int?) -> Bool)?, audit: AuditNote?) async throws -> Bool

    /// Whether a form with this id exists.
    func formExists(id: String, includingDeleted: Bool) async throws -> Bool
}

extension FormVersionStore {
    /// Stores a definition as the form's new current version, creating the form if needed.
    public func saveFormVersion(formID: String, definition: String, title: String, contentHash: String) async throws -> SavedVersion {
        try await saveFormVersion(formID: formID, definition: definition, title: title, contentHash: contentHash,
                                  createOnly: false, precondition: nil, audit: nil)
    }

    /// Stores a definition with `createOnly` and no precondition.
    public func saveFormVersion(
        formID: String, definition: String, title: String, contentHash: String, createOnly: Bool
    ) async throws -> SavedVersion {
        try await saveFormVersion(formID: formID, definition: definition, title: title, contentHash: contentHash,
                                  createOnly: createOnly, precondition: nil, audit: nil)
    }

    /// Marks a form deleted, unconditionally.
    public func deleteForm(id: String) async throws -> Bool {
        try await deleteForm(id: id, precondition: nil, audit: nil)
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
