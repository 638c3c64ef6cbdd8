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

    func register(on admin: inout AdminRoutes) {
        admin.on(.get, "/forms/{id}/stats", needs: .init(.read, .form("id"))) { request, _ in try await stats(request) }
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
