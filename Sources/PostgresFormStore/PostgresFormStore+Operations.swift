import FormStore
import PostgresNIO

extension PostgresFormStore: StoreOperations {
    /// Ready when a pooled connection comes within ``PostgresStoreConfiguration/connectionWait`` and
    /// every table of the schema answers a one-row read.
    public func ping() async throws {
        try await read { connection in
            try await connection.execute("""
                SELECT (SELECT 1 FROM forms LIMIT 1), (SELECT 1 FROM form_versions LIMIT 1),
                    (SELECT 1 FROM submissions LIMIT 1), (SELECT 1 FROM webhook_endpoints LIMIT 1),
                    (SELECT 1 FROM deliveries LIMIT 1), (SELECT 1 FROM delivery_attempts LIMIT 1),
                    (SELECT 1 FROM uploads LIMIT 1)
                """, logger: self.logger)
        }
    }

    /// Calls `handler` after each commit of this node that queued deliveries, and whenever another
    /// node's did (it notifies on commit). Replaces any earlier handler.
    public func onDeliveriesCreated(_ handler: @escaping @Sendable () -> Void) {
        deliveryObserver.set(handler)
        changeListener.start()
    }

    /// Calls `handler` with a form's id after a save or delete of that form on any node, this one's
    /// included (its notification comes back to it too), within about a second: from the notification
    /// at once, or from the change feed read every ``PostgresStoreConfiguration/changePollInterval``
    /// when a notification was lost. Replaces any earlier handler.
    public func onFormChanged(_ handler: @escaping @Sendable (String) -> Void) {
        changeListener.onFormChanged(handler)
    }
}
