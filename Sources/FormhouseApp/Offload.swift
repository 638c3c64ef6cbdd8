import Dispatch

/// Runs blocking work (a DNS lookup) on a Dispatch thread, so it holds neither an event loop nor a
/// thread of Swift's cooperative pool.
enum Offload {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }
}
