import Foundation
import HTTPServer
import Metrics
import Synchronization

/// Counts every request by route pattern (never the raw path, which would explode the label set),
/// method and status, and times it by route and method.
struct RequestMetrics: Middleware {
    /// Methods are labelled as sent only when known: a client's invented methods must not grow the label set.
    static func label(_ method: HTTPMethod) -> String {
        switch method {
        case .get, .head, .post, .put, .delete, .patch, .options: method.rawValue
        default: "other"
        }
    }
    let handles = MetricHandles()

    func handle(_ request: Request, next: any Responder) async throws -> Response {
        let start = ContinuousClock.now
        var status = 500
        var route = "unmatched"
        defer {
            let method = Self.label(request.method)
            let (counter, timer) = handles.for(route: route, method: method, status: status)
            counter.increment()
            timer.recordInterval(since: start)
        }
        do {
            let response = try await next.respond(to: request)
            status = response.status
            route = response.routePattern ?? "unmatched"
            return response
        } catch let problem as any HTTPResponseConvertible {
            status = problem.response.status
            throw problem
        } catch let error as RoutedError {
            route = error.pattern
            throw error
        } catch {
            status = 500
            throw error
        }
    }
}

/// Metric handles made once per label set: making one asks the backend's registry under a lock, which
/// would otherwise happen twice per request.
final class MetricHandles: Sendable {
    private struct Key: Hashable { var route: String; var method: String; var status: Int }
    private let cache = Mutex<[Key: (Counter, Metrics.Timer)]>([:])

    func `for`(route: String, method: String, status: Int) -> (Counter, Metrics.Timer) {
        let key = Key(route: route, method: method, status: status)
        if let found = cache.withLock({ $0[key] }) { return found }
        let made = (
            Counter(label: "formhouse_http_requests_total",
                    dimensions: [("route", route), ("method", method), ("status", String(status))]),
            Metrics.Timer(label: "formhouse_http_request_duration_seconds", dimensions: [("route", route), ("method", method)])
        )
        return cache.withLock { table in
            if let raced = table[key] { return raced }
            table[key] = made
            return made
        }
    }
}

extension Metrics.Timer {
    func recordInterval(since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }
}
