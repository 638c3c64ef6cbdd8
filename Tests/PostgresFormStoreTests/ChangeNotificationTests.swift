import FormStore
import Foundation
import PostgresNIO
import StoreTestSupport
import Synchronization
import Testing

@testable import PostgresFormStore

/// What one node learns of another's writes: form changes (for its cache of current versions) and
/// new deliveries (to wake its worker).
@Suite struct ChangeNotificationTests {
    @Test func aFormSavedOrDeletedOnOneNodeIsReportedOnAnotherWithinASecond() async throws {
        try await withWriterAndReader { writer, seen in
            try await makeForm(writer, id: "f")
            try await seen.expect(["f"], within: .seconds(1))
            // An identical upload changes nothing and is not reported.
            try await makeForm(writer, id: "f")
            _ = try await writer.saveFormVersion(formID: "g", definition: "{}", title: "G", contentHash: "g1")
            try await seen.expect(["f", "g"], within: .seconds(1))
            #expect(try await writer.deleteForm(id: "f"))
            try await seen.expect(["f", "g", "f"], within: .seconds(1))
        }
    }

    /// The listener's connection is cut and stays down (its retry is far off): the change feed alone
    /// reports the save, within a second.
    @Test func aChangeWhoseNotificationIsLostIsReportedFromTheFeed() async throws {
        var configuration = PostgresStoreConfiguration()
        configuration.listenerRetryDelay = .seconds(60)
        try await withWriterAndReader(readerConfiguration: configuration) { writer, seen in
            try await terminateListeners(in: writer)
            try await makeForm(writer, id: "f")
            try await seen.expect(["f"], within: .seconds(1))
            #expect(try await listenerCount(in: writer) == 0)
        }
    }

    /// With the feed read only once an hour, a save is reported only by a notification: the listener
    /// has reconnected after its connection was cut.
    @Test func theListenerReconnectsAfterItsConnectionIsCut() async throws {
        var configuration = PostgresStoreConfiguration()
        configuration.changePollInterval = .seconds(3600)
        configuration.listenerRetryDelay = .milliseconds(50)
        try await withWriterAndReader(readerConfiguration: configuration) { writer, seen in
            try await terminateListeners(in: writer)
            try await waitForListeners(1, in: writer)
            try await makeForm(writer, id: "f")
            try await seen.expect(["f"], within: .seconds(1))
        }
    }

    @Test func deliveriesQueuedOnOneNodeWakeAnother() async throws {
        let settings = try PostgresTestCluster.shared().freshDatabase()
        let writer = try await PostgresFormStore(settings: settings)
        defer { writer.close() }
        let reader = try await PostgresFormStore(settings: settings)
        defer { reader.close() }
        try await makeForm(writer)
        let wakeUps = Seen<String>()
        reader.onDeliveriesCreated { wakeUps.add("reader") }
        try await waitForListeners(1, in: writer)

        // No endpoint, no delivery: nobody is woken.
        _ = try await writer.insertSubmission(newSubmission())
        try await Task.sleep(for: .milliseconds(300))
        try await wakeUps.expect([], within: .zero)
        try await addEndpoint("active", to: writer)
        _ = try await writer.insertSubmission(newSubmission())
        try await wakeUps.expect(["reader"], within: .seconds(1))
    }
}

/// Opens two stores on a fresh database, the reader with `readerConfiguration` and listening for form
/// changes, and runs `body` with the writer and what the reader saw once its listener is up.
private func withWriterAndReader(
    readerConfiguration: PostgresStoreConfiguration = .init(),
    _ body: (PostgresFormStore, Seen<String>) async throws -> Void
) async throws {
    let settings = try PostgresTestCluster.shared().freshDatabase()
    let writer = try await PostgresFormStore(settings: settings)
    defer { writer.close() }
    let reader = try await PostgresFormStore(settings: settings, configuration: readerConfiguration)
    defer { reader.close() }
    let seen = Seen<String>()
    reader.onFormChanged { seen.add($0) }
    try await waitForListeners(1, in: writer)
    try await body(writer, seen)
}

/// The listening connections on the store's database (by their application name).
private func listenerCount(in store: PostgresFormStore) async throws -> Int {
    try await store.client.query("""
        SELECT count(*)::bigint FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = \(ChangeListener.applicationName)
        """).decode(Int.self).reduce(0) { $0 + $1 }
}

/// Waits (up to 10 s) until `count` listeners are connected and listening.
private func waitForListeners(_ count: Int, in store: PostgresFormStore) async throws {
    for _ in 0..<1000 {
        let listening = try await store.client.query("""
            SELECT count(*)::bigint FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = \(ChangeListener.applicationName)
                AND query LIKE '%formhouse_deliveries%'
            """).decode(Int.self).reduce(0) { $0 + $1 }
        if listening >= count { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("no listener connected")
}

/// Cuts every listening connection of the store's database and waits until they are gone.
private func terminateListeners(in store: PostgresFormStore) async throws {
    try await store.client.query("""
        SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = \(ChangeListener.applicationName)
        """).decode(Bool.self).reduce(into: ()) { _, _ in }
}
