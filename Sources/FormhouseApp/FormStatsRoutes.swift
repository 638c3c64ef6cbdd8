import FormStore
import Foundation
import HTTPServer

/// `GET /v1/admin/forms/{id}/stats`: where people give up, from the counters the store keeps as
/// submissions, rejections and drafts are written.
struct FormStatsRoutes {
    let catalog: FormCatalog
    let store: any FormStore

    /// The most days one answer covers.
    static let maxDays = 366

    func register(on admin: inout RouterGroup<AppContext>) {
        admin.on(.get, "/forms/{id}/stats") { request, _ in try await stats(request) }
    }

    func stats(_ request: Request, now: Date = Date()) async throws -> Response {
        let id = try request.formID()
        guard try await catalog.current(id: id) != nil else { throw APIProblem.notFound("There is no form '\(id)'.") }
        var days = 30
        if let raw = try request.queryValue("days") {
            guard let value = Int(raw), (1...Self.maxDays).contains(value) else {
                throw APIProblem(.invalidParameter, "'days' must be a whole number from 1 to \(Self.maxDays).")
            }
            days = value
        }
        let through = now.statsDay
        let from = through - days + 1
        let stats = try await store.stats(formID: id, from: from, through: through)
        return Response.json(encoding: FormStatsJSON(formID: id, from: from, through: through, stats: stats))
    }
}

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
