import FormStore
import Foundation
import HTTPServer

/// `GET /v1/admin/audit`: the audit log, newest first, for owners of every form.
struct AuditRoutes {
    let store: any FormStore
    let cursors: CursorSeal

    func register(on admin: inout AdminRoutes) {
        admin.on(.get, "/audit", needs: .init(.own, .everyForm)) { request, _ in try await list(request) }
    }

    /// The filters a page may carry; a cursor belongs to one set of them.
    static let filters = ["actor", "action", "target", "from", "until"]

    /// The log names every form, so the route needs a token that reaches every form.
    func list(_ request: Request) async throws -> Response {
        let limit = try request.pageLimit()
        var query = AuditQuery(newestFirst: true, limit: limit + 1)
        query.actor = try request.queryValue("actor")
        query.action = try request.queryValue("action")
        query.target = try request.queryValue("target")
        query.from = try Self.time(request, "from")
        query.until = try Self.time(request, "until")
        for case let (name, value?) in [("actor", query.actor), ("action", query.action), ("target", query.target)]
        where value.utf8.count > 200 {
            throw APIProblem(.invalidParameter, "'\(name)' is longer than 200 bytes.")
        }
        let scope = try "audit:" + Self.filters.map { try request.queryValue($0) ?? "" }.joined(separator: "\u{1F}")
        if let cursor = try request.pageCursor(openedBy: cursors, scope: scope) {
            guard let sequence = Int64(cursor) else { throw APIProblem.invalidCursor }
            query.before = sequence
        }
        var entries = try await store.auditEntries(query)
        var next: String?
        if entries.count > limit {
            entries.removeLast()
            next = entries.last.map { cursors.seal(String($0.sequence), scope: scope) }
        }
        return .json(encoding: PageJSON(items: entries.map(AuditEntryJSON.init), nextCursor: next))
    }

    /// An RFC 3339 time parameter (`2026-11-27T10:00:00Z`, fractions of a second allowed).
    static func time(_ request: Request, _ name: String) throws -> Date? {
        guard let raw = try request.queryValue(name) else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: raw) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = formatter.date(from: raw) else {
            throw APIProblem(.invalidParameter, "'\(name)' must be an RFC 3339 time, such as 2026-11-27T10:00:00Z.")
        }
        return date
    }
}
