import FormStore
import Logging
import PostgresNIO

/// The statements of a form's daily counters (`form_daily_stats`, `form_rejection_stats`), run inside
/// the transactions of the writes they count. Counter rows are written in order of form and day, so
/// that two transactions adding to the same rows lock them in the same order (and do not deadlock).
enum PostgresFormStatsQueries {
    /// Counts one draft of `formID` as started on `day` (days since 1970-01-01, UTC). Run it in the
    /// transaction that inserts the draft, so the count stands or falls with the row; the form must exist.
    static func countDraftStarted(formID: String, day: Int, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.execute("""
            INSERT INTO form_daily_stats (form_id, day, drafts_started) VALUES (\(formID), \(day), 1)
            ON CONFLICT (form_id, day) DO UPDATE SET drafts_started = form_daily_stats.drafts_started + 1
            """, logger: logger)
    }

    /// Adds a group's stored submissions to their forms' days, in one statement.
    static func addSubmissions(_ tally: SubmissionTally, on connection: PostgresConnection, logger: Logger) async throws {
        let entries = tally.entries
        if entries.isEmpty { return }
        try await connection.execute("""
            INSERT INTO form_daily_stats (form_id, day, submissions, drafts_submitted)
            SELECT * FROM unnest(\(entries.map(\.formDay.formID))::text[], \(entries.map(\.formDay.day))::bigint[],
                \(entries.map(\.submissions))::bigint[], \(entries.map(\.draftsSubmitted))::bigint[])
                AS s(form_id, day, submissions, drafts_submitted)
            ORDER BY form_id COLLATE "C", day
            ON CONFLICT (form_id, day) DO UPDATE SET
                submissions = form_daily_stats.submissions + excluded.submissions,
                drafts_submitted = form_daily_stats.drafts_submitted + excluded.drafts_submitted
            """, logger: logger)
    }

    /// Adds a group's rejections to their forms' days, one statement per table; those of forms that
    /// do not exist are left out by the statements themselves, so no foreign key fails the group.
    static func addRejections(_ tally: RejectionTally, on connection: PostgresConnection, logger: Logger) async throws {
        if tally.rejected.isEmpty { return }
        let days = Array(tally.rejected)
        try await connection.execute("""
            INSERT INTO form_daily_stats (form_id, day, rejected)
            SELECT r.form_id, r.day, r.rejected
            FROM unnest(\(days.map(\.key.formID))::text[], \(days.map(\.key.day))::bigint[], \(days.map(\.value))::bigint[])
                AS r(form_id, day, rejected)
            WHERE EXISTS (SELECT 1 FROM forms WHERE forms.id = r.form_id)
            ORDER BY r.form_id COLLATE "C", r.day
            ON CONFLICT (form_id, day) DO UPDATE SET rejected = form_daily_stats.rejected + excluded.rejected
            """, logger: logger)
        if tally.failures.isEmpty { return }
        let failures = Array(tally.failures)
        try await connection.execute("""
            INSERT INTO form_rejection_stats (form_id, day, field, code, count)
            SELECT f.form_id, f.day, f.field, f.code, f.count
            FROM unnest(\(failures.map(\.key.formDay.formID))::text[], \(failures.map(\.key.formDay.day))::bigint[],
                \(failures.map(\.key.failure.field))::text[], \(failures.map(\.key.failure.code))::text[],
                \(failures.map(\.value))::bigint[]) AS f(form_id, day, field, code, count)
            WHERE EXISTS (SELECT 1 FROM forms WHERE forms.id = f.form_id)
            ORDER BY f.form_id COLLATE "C", f.day, f.field COLLATE "C", f.code COLLATE "C"
            ON CONFLICT (form_id, day, field, code) DO UPDATE SET count = form_rejection_stats.count + excluded.count
            """, logger: logger)
    }

    /// A form's counters from day `from` through day `through`, both included.
    static func stats(
        formID: String, from: Int, through: Int, on connection: PostgresConnection, logger: Logger
    ) async throws -> FormStats {
        var days: [FormStatsDay] = []
        let dayRows = try await connection.query("""
            SELECT day, submissions, rejected, drafts_started, drafts_submitted FROM form_daily_stats
            WHERE form_id = \(formID) AND day BETWEEN \(from) AND \(through)
            ORDER BY day
            """, logger: logger)
        for try await (day, submissions, rejected, started, submitted) in dayRows.decode((Int, Int, Int, Int, Int).self) {
            days.append(FormStatsDay(
                day: day, submissions: submissions, rejected: rejected, draftsStarted: started, draftsSubmitted: submitted))
        }
        var rejections: [String: [String: Int]] = [:]
        let failureRows = try await connection.query("""
            SELECT field, code, sum(count)::bigint FROM form_rejection_stats
            WHERE form_id = \(formID) AND day BETWEEN \(from) AND \(through)
            GROUP BY field, code
            """, logger: logger)
        for try await (field, code, count) in failureRows.decode((String, String, Int).self) {
            rejections[field, default: [:]][code] = count
        }
        return FormStats(days: days, rejections: rejections)
    }
}
