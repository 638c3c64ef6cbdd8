/// What the server asks of a store beyond its data: readiness, wake-ups and shutdown.
public protocol StoreOperations: Sendable {
    /// A cheap read that throws when the database cannot be read (for readiness checks).
    func ping() async throws

    /// Calls `handler` after each commit that queued new deliveries, so a delivery worker can wake at
    /// once instead of polling eagerly. Replaces any earlier handler.
    func onDeliveriesCreated(_ handler: @escaping @Sendable () -> Void)

    /// Calls `handler` with a form's id after another process changed that form (a save or a delete
    /// on another node), so a cache of current versions can drop it. A store that only this process
    /// writes never calls it: the process knows its own writes. Replaces any earlier handler.
    func onFormChanged(_ handler: @escaping @Sendable (_ formID: String) -> Void)

    /// Fails what is queued, lets a write in progress finish, and lets go of the database (at
    /// shutdown: the store is not used after it).
    func close()
}
