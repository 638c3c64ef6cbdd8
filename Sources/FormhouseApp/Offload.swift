import Dispatch

/// Work that must not run on an event loop or hold a thread of Swift's cooperative pool.
enum Offload {
    /// CPU-bound work (parsing and compiling a definition, encoding an export batch) on Dispatch's
    /// global pool, which is as wide as the machine has cores.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// An async call that may block its thread for a while (a file system's fsync), run off the event
    /// loop that would otherwise wait it out with every connection it serves.
    static func offLoop<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task.detached { try await body() }.value
    }

    /// A blocking call (a DNS lookup, a socket read) on a thread of its own: blocked on the global
    /// pool, a few of them would leave CPU work queued behind them until Dispatch grew the pool,
    /// seconds later.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            // A queue of its own is overcommitting: it gets a thread even when the pool is busy.
            DispatchQueue(label: "formhouse.blocking").async { continuation.resume(with: Result { try body() }) }
        }
    }
}
