import Foundation
import HTTPServer
import Metrics
import Synchronization

/// Counts every request by route pattern (never the raw path, which would explode the label set),
/// method and status, and times it by route and method.
struct RequestMetrics: RequestHook {
    /// Methods are labelled as sent only when known: a client's invented methods must not grow the label set.
    static func label(_ method: HTTPMethod) -> String {
        switch method {
        case .get, .head, .post, .put, .delete, .patch, .options: method.rawValue
        default: "other"
        }
    }
    let handles = MetricHandles()

    /// Sees the final response: thrown errors are already problems, and the context names the route
    /// even when its handler failed, so a 500 is counted under the route that failed.
    func didRespond(to request: Request, context: CoreRequestContext, response: inout Response, elapsed: Duration) {
        let (counter, timer) = handles.for(
            route: context.routePattern ?? "unmatched", method: Self.label(request.method), status: response.status)
        counter.increment()
        timer.recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }

    /// What the HTTP layer refused (413, 414, 431, 400, 408) is counted too, under the route
    /// `refused`: no request was parsed to give a route or a method.
    func didRefuse(status: Int) {
        handles.for(route: "refused", method: "unknown", status: status).0.increment()
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
