import Foundation

/// A data directory under the system's temp directory, removed when the fixture goes away.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    public init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("formstore-tests-\(UUID().uuidString)")
            .appendingPathComponent("data")
    }

    deinit {
        try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
    }
}
