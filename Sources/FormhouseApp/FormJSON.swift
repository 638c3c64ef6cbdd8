import FormStore

/// A form version just saved, as PUT and POST answer it.
struct SavedFormJSON: Encodable {
    var id: String
    var version: Int
    var title: String
    var createdAt: String

    init(_ form: PublishedForm) {
        id = form.id
        version = form.version
        title = form.title
        createdAt = Timestamp.rfc3339(form.createdAt)
    }
}

/// A form in the forms list.
struct FormListItemJSON: Encodable {
    var id: String
    var title: String
    var version: Int
    var updatedAt: String
    var submissionCount: Int

    init(_ form: FormSummary) {
        id = form.id
        title = form.title
        version = form.version
        updatedAt = Timestamp.rfc3339(form.updatedAt)
        submissionCount = form.submissionCount
    }
}

/// A version in a form's list of versions.
struct FormVersionJSON: Encodable {
    var version: Int
    var title: String
    var createdAt: String
    var contentHash: String

    init(_ summary: FormVersionSummary) {
        version = summary.version
        title = summary.title
        createdAt = Timestamp.rfc3339(summary.createdAt)
        contentHash = summary.contentHash
    }
}
