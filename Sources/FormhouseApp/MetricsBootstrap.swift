import Metrics
import Prometheus
import Synchronization

/// Installs the Prometheus registry as the process's metrics backend, once.
public enum MetricsBootstrap {
    private static let shared = Mutex<PrometheusCollectorRegistry?>(nil)

    public static func registry() -> PrometheusCollectorRegistry {
        shared.withLock { current in
            if let current { return current }
            let registry = PrometheusCollectorRegistry()
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
            current = registry
            return registry
        }
    }
}
