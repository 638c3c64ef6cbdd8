import Synchronization

/// Holds the callback that wakes the delivery worker when a commit queued deliveries.
final class DeliveryObserver: Sendable {
    private let handler = Mutex<(@Sendable () -> Void)?>(nil)

    func set(_ newHandler: @escaping @Sendable () -> Void) {
        handler.withLock { $0 = newHandler }
    }

    func notify() {
        handler.withLock { $0 }?()
    }
}
