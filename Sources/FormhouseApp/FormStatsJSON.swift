import FormStore

/// The stats answer: totals over the range, failures by input and code, and every day of the range.
struct FormStatsJSON: Encodable {
    var formId: String
    var from: String
    var to: String
    var draftsStarted = 0
    var draftsSubmitted = 0
    var submissions = 0
    var rejected = 0
    /// Drafts submitted per draft started; null before any draft.
    @NullWhenNil var completionRate: Double?
    var rejections: [String: [String: Int]]
    var daily: [Day]

    struct Day: Encodable {
        var date: String
        var submissions: Int
        var rejected: Int
        var draftsStarted: Int
        var draftsSubmitted: Int
    }

    init(formID: String, from: Int, through: Int, stats: FormStats) {
        formId = formID
        self.from = Timestamp.date(day: from)
        to = Timestamp.date(day: through)
        rejections = stats.rejections
        let byDay = Dictionary(stats.days.map { ($0.day, $0) }, uniquingKeysWith: { first, _ in first })
        daily = (from...through).map { day in
            let counts = byDay[day] ?? FormStatsDay(day: day)
            return Day(date: Timestamp.date(day: day), submissions: counts.submissions, rejected: counts.rejected,
                       draftsStarted: counts.draftsStarted, draftsSubmitted: counts.draftsSubmitted)
        }
        for day in stats.days where (from...through).contains(day.day) {
            draftsStarted += day.draftsStarted
            draftsSubmitted += day.draftsSubmitted
            submissions += day.submissions
            rejected += day.rejected
        }
        // A draft started before the range and submitted in it can push the rate past 1.
        completionRate = draftsStarted == 0 ? nil : min(1, Double(draftsSubmitted) / Double(draftsStarted))
    }
}
