import GRDB

/// The upload statements shared by the store's methods and the group writer.
enum UploadQueries {
    /// The columns ``UploadRecord/init(row:)`` reads, in its order.
    static let columns = """
        id, form_id, field, filename, content_type, declared_size, received, sha256, complete, storage_key,
            client_address, created_at, expires_at, submission_id
        """

    /// Why a submission cannot be stored: uploads it names that cannot be bound to it.
    struct Unavailable: Error {
        var ids: [String]
    }

    /// Binds the uploads to the submission, each id once, or throws ``Unavailable`` naming every one
    /// that is unknown, incomplete, of another form or bound already; the caller's savepoint then
    /// backs out those it did bind.
    static func bind(_ ids: [String], to submission: SubmissionRecord, in db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            UPDATE uploads SET submission_id = ?
            WHERE id = ? AND form_id = ? AND complete = 1 AND submission_id IS NULL
            """)
        var seen = Set<String>()
        var unavailable: [String] = []
        for id in ids where seen.insert(id).inserted {
            try statement.execute(arguments: [submission.id, id, submission.formID])
            if db.changesCount == 0 { unavailable.append(id) }
        }
        if !unavailable.isEmpty { throw Unavailable(ids: unavailable) }
    }
}
