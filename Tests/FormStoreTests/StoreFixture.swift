import Dispatch
import Foundation
import GRDB
import Synchronization
import StoreTestSupport
import Testing

@testable import FormStore

/// Opens a store in a fresh temporary directory, runs `body`, closes the store and removes the files.
func withStore<T>(
    _ configuration: SQLiteStoreConfiguration = .init(),
    _ body: (SQLiteFormStore, TemporaryDirectory) async throws -> T
) async throws -> T {
    let directory = TemporaryDirectory()
    let store = try SQLiteFormStore(directory: directory.url, configuration: configuration)
    defer { store.close() }
    return try await body(store, directory)
}

/// Keeps the store's single writer connection busy until ``open()``, so that submissions made
/// meanwhile queue up and are written as one group once it opens.
final class WriterGate: Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    init(_ store: SQLiteFormStore) {
        let pool = store.pool
        let entered = entered
        let released = released
        Thread {
            pool.writeWithoutTransaction { _ in
                entered.signal()
                released.wait()
            }
        }.start()
        entered.wait()
    }

    func open() {
        released.signal()
    }
}

/// Waits until `condition` holds, checking every millisecond, for at most about a minute.
func eventually(_ condition: () -> Bool) async throws {
    for _ in 0..<60_000 {
        if condition() { return }
        try await Task.sleep(nanoseconds: 1_000_000)
    }
    Issue.record("condition never became true")
}

/// A switch that closures in the store's configuration can read.
final class Flag: Sendable {
    private let value: Mutex<Bool>

    init(_ initial: Bool) {
        value = Mutex(initial)
    }

    var isOn: Bool {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

struct InjectedCommitFailure: Error {}

/// Makes the store's database file in `directory` as an earlier formhouse left it: the schema up to
/// `migration`, with the rows `fill` inserts.
func makeDatabase(
    in directory: TemporaryDirectory, upTo migration: String, _ fill: @escaping @Sendable (Database) throws -> Void
) async throws {
    try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
    // Process settings first, as the store would: this may be the test process's first open.
    _ = SQLiteFormStore.processSettings
    let queue = try DatabaseQueue(path: directory.url.appendingPathComponent(SQLiteStoreConfiguration().fileName).path)
    try Schema.migrator.migrate(queue, upTo: migration)
    try await queue.write(fill)
    try queue.close()
}
