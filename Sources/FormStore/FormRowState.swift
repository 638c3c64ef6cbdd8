/// What saving and deleting a form check of its row in `forms`. Both stores use this one type and
/// its ``check(_:form:)``, so a precondition sees the same version whichever store answers.
package struct FormRowState: Sendable, Decodable {
    enum CodingKeys: String, CodingKey {
        case currentVersion = "current_version", deletedAt = "deleted_at"
    }

    package var currentVersion: Int
    package var deletedAt: Int64?

    package init(currentVersion: Int, deletedAt: Int64?) {
        self.currentVersion = currentVersion
        self.deletedAt = deletedAt
    }

    /// The version the form serves: none once it is deleted.
    package var liveVersion: Int? { deletedAt == nil ? currentVersion : nil }

    /// Throws ``StoreError/preconditionFailed(currentVersion:)`` when `precondition` refuses the
    /// live version of `form` (nil when there is no such form).
    package static func check(_ precondition: (@Sendable (Int?) -> Bool)?, form: FormRowState?) throws {
        guard let precondition else { return }
        let live = form?.liveVersion
        if !precondition(live) { throw StoreError.preconditionFailed(currentVersion: live) }
    }
}
