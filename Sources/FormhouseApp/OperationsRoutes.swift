import FileStorage
import FormEngine
import FormStore
import Foundation
import HTTPServer
import Prometheus

/// Liveness, readiness and metrics (docs/operations.md).
struct OperationsRoutes {
    let readiness: ReadinessProbe
    let registry: PrometheusCollectorRegistry
    /// The check of `metrics.token`, when one is set.
    let metricsAuth: AdminAuth?

    init(store: any FormStore, storage: any BlobStorage, registry: PrometheusCollectorRegistry, metricsToken: String? = nil) {
        metricsAuth = metricsToken.map { AdminAuth(tokens: AdminToken.owners([$0])) }
        readiness = ReadinessProbe {
            try await store.ping()
            try await storage.checkReady()
        }
        self.registry = registry
    }

    func register(on router: inout Router<AppContext>) {
        router.on(.get, "/healthz") { _, _ in .json(Array(#"{"status":"ok"}"#.utf8)) }
        router.on(.get, "/readyz") { _, _ in try await ready() }
        router.on(.get, "/metrics") { request, _ in
            _ = try metricsAuth?.authorize(request)
            return metrics()
        }
    }

    func ready() async throws -> Response {
        switch await readiness.check() {
        case .ready:
            return .json(Array(#"{"status":"ready"}"#.utf8))
        case .failed:
            throw APIProblem.unavailable("Storage cannot be read: the database or the file storage is unreachable.", retryAfter: 5)
        case .noAnswer:
            throw APIProblem.unavailable(
                "Storage did not answer within \(readiness.deadline.components.seconds) s: the disk may be stalled.", retryAfter: 5)
        }
    }

    func metrics() -> Response {
        var response = Response(status: 200, body: .bytes(registry.emitToBuffer()))
        response.headers.set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        return response
    }
}
