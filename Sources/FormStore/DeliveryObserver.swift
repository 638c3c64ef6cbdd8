import Synchronization

/// Holds the callback that wakes the delivery worker when a commit queued deliveries.
package final class DeliveryObserver: Sendable {
    private let handler = Mutex<(@Sendable () -> Void)?>(nil)

    package init() {}

    package func set(_ newHandler: @escaping @Sendable () -> Void) {
        handler.withLock { $0 = newHandler }
    }

    package func notify() {
        handler.withLock { $0 }?()
    }
}
