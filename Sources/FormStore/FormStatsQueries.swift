import GRDB

/// The statements of a form's daily counters (`form_daily_stats`, `form_rejection_stats`), run inside
/// the transactions of the writes they count.
enum FormStatsQueries {
    /// Counts one draft of `formID` as started on `day` (days since 1970-01-01, UTC). Run it in the
    /// transaction that inserts the draft, so the count stands or falls with the row; the form must exist.
    static func countDraftStarted(formID: String, day: Int, in db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO form_daily_stats (form_id, day, drafts_started) VALUES (?, ?, 1)
            ON CONFLICT (form_id, day) DO UPDATE SET drafts_started = drafts_started + 1
            """).execute(arguments: [formID, day])
    }

    /// Adds `submissions` stored rows, `draftsSubmitted` of them from drafts, to a form's day.
    static func addSubmissions(_ submissions: Int, draftsSubmitted: Int, formID: String, day: Int, in db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO form_daily_stats (form_id, day, submissions, drafts_submitted) VALUES (?, ?, ?, ?)
            ON CONFLICT (form_id, day) DO UPDATE SET
                submissions = submissions + excluded.submissions,
                drafts_submitted = drafts_submitted + excluded.drafts_submitted
            """).execute(arguments: [formID, day, submissions, draftsSubmitted])
    }

    /// Adds `count` rejections to a form's day.
    static func addRejected(_ count: Int, formID: String, day: Int, in db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO form_daily_stats (form_id, day, rejected) VALUES (?, ?, ?)
            ON CONFLICT (form_id, day) DO UPDATE SET rejected = rejected + excluded.rejected
            """).execute(arguments: [formID, day, count])
    }

    /// Adds `count` failures of one input and code to a form's day.
    static func addFailures(_ count: Int, of failure: FieldFailure, formID: String, day: Int, in db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO form_rejection_stats (form_id, day, field, code, count) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (form_id, day, field, code) DO UPDATE SET count = count + excluded.count
            """).execute(arguments: [formID, day, failure.field, failure.code, count])
    }

    /// A form's counters from day `from` through day `through`, both read in the caller's transaction.
    static func stats(formID: String, from: Int, through: Int, in db: Database) throws -> FormStats {
        let days = try Row.fetchAll(db, sql: """
            SELECT day, submissions, rejected, drafts_started, drafts_submitted FROM form_daily_stats
            WHERE form_id = ? AND day BETWEEN ? AND ?
            ORDER BY day
            """, arguments: [formID, from, through]).map { row in
                FormStatsDay(
                    day: row[0], submissions: row[1], rejected: row[2], draftsStarted: row[3], draftsSubmitted: row[4])
            }
        var rejections: [String: [String: Int]] = [:]
        let failures = try Row.fetchCursor(db, sql: """
            SELECT field, code, SUM(count) FROM form_rejection_stats
            WHERE form_id = ? AND day BETWEEN ? AND ?
            GROUP BY field, code
            """, arguments: [formID, from, through])
        while let row = try failures.next() {
            rejections[row[0], default: [:]][row[1]] = row[2]
        }
        return FormStats(days: days, rejections: rejections)
    }
}
