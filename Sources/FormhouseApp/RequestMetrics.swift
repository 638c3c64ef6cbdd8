import Foundation
import HTTPServer
import Metrics

/// Counts every request by route pattern (never the raw path, which would explode the label set),
/// method and status, and times it.
struct RequestMetrics: Middleware {
    func handle(_ request: Request, next: any Responder) async throws -> Response {
        let start = ContinuousClock.now
        var status = 500
        var route = "unmatched"
        defer {
            let dimensions = [("route", route), ("method", request.method.rawValue), ("status", String(status))]
            Counter(label: "formhouse_http_requests_total", dimensions: dimensions).increment()
            Timer(label: "formhouse_http_request_duration_seconds", dimensions: [("route", route), ("method", request.method.rawValue)])
                .recordInterval(since: start)
        }
        do {
            let response = try await next.respond(to: request)
            status = response.status
            route = response.routePattern ?? "unmatched"
            return response
        } catch let problem as any HTTPResponseConvertible {
            status = problem.response.status
            throw problem
        } catch {
            status = 500
            throw error
        }
    }
}

extension Timer {
    func recordInterval(since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }
}
