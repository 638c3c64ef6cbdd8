import FormStore
import Foundation
import GRDB
import Logging
@testable import PostgresFormStore
import PostgresNIO
import StoreTestSupport
import Testing

/// What the audit log promises, on every store: an entry for each admin write that changed something,
/// in that write's transaction, chained so that an entry edited, removed or moved is found.
@Suite struct AuditStoreTests {
    private let secret: [UInt8] = [1, 2, 3, 4]

    static func note(_ action: String, _ target: String, detail: String? = nil) -> AuditNote {
        AuditNote(actor: "ops", action: action, route: "TEST /\(action)", target: target, detail: detail)
    }

    /// A fresh store of `kind` and a way to run SQL on its database behind its back, as someone with
    /// the database's files or credentials could.
    static func withStore(
        _ kind: StoreKind, _ body: (any FormStore, _ sql: @escaping @Sendable (String) async throws -> Void) async throws -> Void
    ) async throws {
        switch kind {
        case .sqlite:
            let directory = TemporaryDirectory()
            let store = try SQLiteFormStore(directory: directory.url)
            defer { store.close() }
            let path = directory.url.appendingPathComponent("formhouse.sqlite").path
            try await body(store) { sql in
                let queue = try DatabaseQueue(path: path)
                try await queue.write { db in try db.execute(sql: sql) }
                try queue.close()
            }
        case .postgres:
            let settings = try PostgresTestCluster.shared().freshDatabase()
            let store = try await PostgresFormStore(settings: settings)
            defer { store.close() }
            try await body(store) { sql in
                let connection = try await PostgresConnection.connect(
                    configuration: try settings.connectionConfiguration(), id: 7, logger: Logger(label: "test.tamper"))
                defer { Task { try? await connection.close() } }
                try await connection.query(PostgresQuery(unsafeSQL: sql), logger: connection.logger).reduce(into: ()) { _, _ in }
            }
        }
    }

    /// Every write that changed something, one entry each, oldest first: a save records the versions
    /// before and after, a save or delete that changed nothing records nothing, and neither does a
    /// refused precondition.
    @Test(arguments: StoreKind.allCases)
    func eachChangeIsRecordedOnceWithItsVersions(_ kind: StoreKind) async throws {
        try await Self.withStore(kind) { store, _ in
            func save(_ hash: String, precondition: (@Sendable (Int?) -> Bool)? = nil) async throws -> SavedVersion {
                try await store.saveFormVersion(formID: "signup", definition: "{}", title: "Signup", contentHash: hash,
                                                createOnly: false, precondition: precondition, audit: Self.note("form.saved", "signup"))
            }
            _ = try await save("h1")
            _ = try await save("h1")
            _ = try await save("h2")
            await #expect(throws: StoreError.preconditionFailed(currentVersion: 2)) { _ = try await save("h3") { $0 == 1 } }
            let endpoint = try await store.createEndpoint(
                NewEndpoint(formID: "signup", url: "https://a.test/", secretCiphertext: secret), audit: Self.note("webhook.created", "ep"))
            _ = try await store.rotateEndpointSecret(
                id: endpoint.id, newSecretCiphertext: secret, previousValidUntil: Date(), audit: Self.note("webhook.rotated", endpoint.id))
            #expect(try await store.rotateEndpointSecret(
                id: "ep_nope", newSecretCiphertext: secret, previousValidUntil: Date(), audit: Self.note("webhook.rotated", "ep_nope")) == nil)
            #expect(try await store.insertSubmission(newSubmission(id: "sub_1")) == .inserted)
            let delivery = try #require(try await store.deliveries(status: nil, formID: "signup", limit: 1, cursor: nil).items.first)
            #expect(try await store.redeliver(id: delivery.id, now: Date(), audit: Self.note("delivery.redelivered", delivery.id)) == .queued)
            #expect(try await store.eraseSubmissions(ids: ["sub_1", "sub_nope"], formID: "signup", audit: Self.note("submissions.erased", "signup"))
                == DeletedSubmissions(submissions: 1, deliveries: 1, attempts: 0, files: 0))
            #expect(try await store.eraseSubmissions(ids: ["sub_1"], formID: "signup", audit: Self.note("submissions.erased", "signup"))
                == DeletedSubmissions())
            #expect(try await store.deleteEndpoint(id: endpoint.id, audit: Self.note("webhook.deleted", endpoint.id)))
            #expect(try await !store.deleteEndpoint(id: endpoint.id, audit: Self.note("webhook.deleted", endpoint.id)))
            #expect(try await store.deleteForm(id: "signup", precondition: nil, audit: Self.note("form.deleted", "signup")))
            #expect(try await !store.deleteForm(id: "signup", precondition: nil, audit: Self.note("form.deleted", "signup")))
            _ = try await save("h4")

            let entries = try await store.auditEntries(AuditQuery(limit: 100))
            #expect(entries.map(\.action) == [
                "form.saved", "form.saved", "webhook.created", "webhook.rotated", "delivery.redelivered", "submissions.erased",
                "webhook.deleted", "form.deleted", "form.saved",
            ])
            #expect(entries.map(\.sequence) == Array(1...9))
            #expect(entries.map(\.versionBefore) == [nil, 1, nil, nil, nil, nil, nil, 2, nil])
            #expect(entries.map(\.versionAfter) == [1, 2, nil, nil, nil, nil, nil, nil, 3])
            #expect(entries.allSatisfy { $0.actor == "ops" && $0.hash == $0.computedHash })
            #expect(try await AuditChain.verify(store, batch: 4) == .intact(entries: 9, head: (9, entries[8].hash)))

            // Newest first, filtered, and paged by sequence.
            let saves = try await store.auditEntries(AuditQuery(newestFirst: true, limit: 2, action: "form.saved"))
            #expect(saves.map(\.sequence) == [9, 2])
            #expect(try await store.auditEntries(AuditQuery(before: 2, newestFirst: true, limit: 5, action: "form.saved")).map(\.sequence) == [1])
            #expect(try await store.auditEntries(AuditQuery(limit: 5, target: "signup")).map(\.sequence) == [1, 2, 6, 8, 9])
            let later = try await store.auditEntries(AuditQuery(limit: 100, from: entries[4].at))
            #expect(later.first.map { $0.sequence <= 5 } == true && later.last?.sequence == 9)
            #expect(try await store.auditEntries(AuditQuery(limit: 100, until: entries[0].at)).isEmpty)
        }
    }

    /// A write that fails after its change was made leaves no entry: the entry is in its transaction.
    @Test(arguments: StoreKind.allCases)
    func aWriteThatFailsLeavesNoEntry(_ kind: StoreKind) async throws {
        try await Self.withStore(kind) { store, _ in
            try await makeForm(store)
            let note = Self.note("webhook.created", "ep_taken")
            _ = try await store.createEndpoint(NewEndpoint(id: "ep_taken", formID: "signup", url: "https://a.test/", secretCiphertext: secret, createdAt: Date()), audit: note)
            await #expect(throws: StoreError.conflict("endpoint ep_taken exists")) {
                _ = try await store.createEndpoint(NewEndpoint(id: "ep_taken", formID: "signup", url: "https://b.test/", secretCiphertext: secret, createdAt: Date()), audit: note)
            }
            #expect(try await store.auditEntries(AuditQuery(limit: 10)).count == 1)
        }
    }

    /// Edited, removed, or two entries swapped, directly in the database (after undoing the
    /// append-only guard, as someone with the files could): the check names the entry.
    @Test(arguments: StoreKind.allCases)
    func theCheckFindsAnEntryEditedRemovedOrMoved(_ kind: StoreKind) async throws {
        let unguard = switch kind {
        case .sqlite: "DROP TRIGGER audit_log_no_update; DROP TRIGGER audit_log_no_delete"
        case .postgres: "ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only"
        }
        let tamperings: [(String, Int64, String)] = [
            ("UPDATE audit_log SET actor = 'someone else' WHERE sequence = 3", 3, "its fields do not match its hash"),
            ("DELETE FROM audit_log WHERE sequence = 2", 3, "entry 2 is missing or out of place"),
            // Swapped: each row takes the other's place, hashes and all, as a reordering would.
            ("""
             UPDATE audit_log SET sequence = -2 WHERE sequence = 2;
             UPDATE audit_log SET sequence = 2 WHERE sequence = 3;
             UPDATE audit_log SET sequence = 3 WHERE sequence = -2
             """, 2, "its previous hash is not the hash of entry 1"),
        ]
        for (tampering, sequence, reason) in tamperings {
            try await Self.withStore(kind) { store, sql in
                for version in 1...4 {
                    _ = try await store.saveFormVersion(formID: "signup", definition: "{}", title: "S", contentHash: "h\(version)",
                                                        createOnly: false, precondition: nil, audit: Self.note("form.saved", "signup"))
                }
                guard case .intact(4, let head?) = try await AuditChain.verify(store) else {
                    Issue.record("the untouched log did not verify"); return
                }
                // The guard holds for anyone who does not undo it.
                await #expect(throws: (any Error).self) { try await sql("UPDATE audit_log SET actor = 'x' WHERE sequence = 1") }
                await #expect(throws: (any Error).self) { try await sql("DELETE FROM audit_log WHERE sequence = 4") }
                try await sql(unguard)
                for statement in tampering.split(separator: ";") { try await sql(String(statement)) }
                #expect(try await AuditChain.verify(store) == .broken(sequence: sequence, reason: reason), "\(tampering)")
                _ = head
            }
        }
        // The newest entry cut off: the chain alone is whole, the head noted earlier is not there.
        try await Self.withStore(kind) { store, sql in
            for version in 1...3 {
                _ = try await store.saveFormVersion(formID: "signup", definition: "{}", title: "S", contentHash: "h\(version)",
                                                    createOnly: false, precondition: nil, audit: Self.note("form.saved", "signup"))
            }
            guard case .intact(3, let head?) = try await AuditChain.verify(store) else { Issue.record("not whole"); return }
            try await sql(unguard)
            try await sql("DELETE FROM audit_log WHERE sequence = 3")
            guard case .intact(2, _) = try await AuditChain.verify(store) else { Issue.record("a cut chain is still a chain"); return }
            #expect(try await AuditChain.verify(store, expectedHead: head)
                == .broken(sequence: 3, reason: "the log ends at entry 2, before the expected head"))
        }
    }

    /// Two nodes writing at once on one database: each entry takes the one before it, never a fork.
    @Test func twoPostgresNodesAppendingAtOnceKeepOneChain() async throws {
        let settings = try PostgresTestCluster.shared().freshDatabase()
        let nodes = [try await PostgresFormStore(settings: settings), try await PostgresFormStore(settings: settings)]
        defer { nodes.forEach { $0.close() } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    _ = try await nodes[index % 2].saveFormVersion(
                        formID: "form\(index % 5)", definition: "{}", title: "F", contentHash: "h\(index)", createOnly: false,
                        precondition: nil, audit: Self.note("form.saved", "form\(index % 5)"))
                }
            }
            try await group.waitForAll()
        }
        guard case .intact(40, _) = try await AuditChain.verify(nodes[1]) else {
            Issue.record("\(try await AuditChain.verify(nodes[1]))"); return
        }
    }
}
