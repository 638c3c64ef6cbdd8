import FormStore
import PostgresNIO
import StoreTestSupport
import Testing

@testable import PostgresFormStore

@Suite struct PostgresFormStoreTests {
    @Test func nodesOpeningAnEmptyDatabaseTogetherMigrateItOnce() async throws {
        let settings = try PostgresTestCluster.shared().freshDatabase()
        let stores = try await withThrowingTaskGroup(of: PostgresFormStore.self) { group in
            for _ in 0..<4 { group.addTask { try await PostgresFormStore(settings: settings) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        defer { stores.forEach { $0.close() } }
        #expect(stores.count == 4)

        var applied: [Int] = []
        for try await version in try await stores[0].client.query("SELECT version FROM schema_migrations ORDER BY version")
            .decode(Int.self) {
            applied.append(version)
        }
        #expect(applied == PostgresSchema.migrations.map(\.version))

        let reopened = try await PostgresFormStore(settings: settings)
        reopened.close()
    }

    @Test func twoNodesCreatingOneFormAtOnceMakeOneForm() async throws {
        let settings = try PostgresTestCluster.shared().freshDatabase()
        let first = try await PostgresFormStore(settings: settings)
        defer { first.close() }
        let second = try await PostgresFormStore(settings: settings)
        defer { second.close() }
        let outcomes = await withTaskGroup(of: Result<SavedVersion, StoreError>.self) { group in
            for (index, store) in [first, second, first, second].enumerated() {
                group.addTask {
                    do {
                        return .success(try await store.saveFormVersion(
                            formID: "f", definition: "{}", title: "F", contentHash: "h\(index)", createOnly: true))
                    } catch {
                        return .failure(error as? StoreError ?? .unavailable("\(error)"))
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { (try? $0.get()) != nil }.count == 1)
        #expect(outcomes.filter { $0 == .failure(.conflict("form f exists")) }.count == 3)
        #expect(try await first.formVersions(id: "f").count == 1)
    }

    @Test func eachConnectionHasTheStatementTimeout() async throws {
        let store = try await PostgresFormStore(
            settings: try PostgresTestCluster.shared().freshDatabase(),
            configuration: { var options = PostgresStoreConfiguration(); options.statementTimeout = .milliseconds(1500); return options }())
        defer { store.close() }
        let timeout = try await store.client.query("SHOW statement_timeout").decode(String.self)
            .reduce(into: []) { $0.append($1) }
        #expect(timeout == ["1500ms"])
        await #expect(throws: StoreError.self) {
            try await store.read { connection in
                try await connection.execute("SELECT pg_sleep(5)", logger: store.logger)
            }
        }
    }

    @Test func itConnectsOverTCPToo() async throws {
        let cluster = try PostgresTestCluster.shared()
        let socketSettings = try cluster.freshDatabase()
        let settings = try PostgresConnectionSettings(
            url: "postgres://\(cluster.username)@127.0.0.1:\(cluster.port)/\(socketSettings.database)?sslmode=disable")
        let store = try await PostgresFormStore(settings: settings)
        defer { store.close() }
        _ = try await store.saveFormVersion(formID: "f", definition: "{}", title: "F", contentHash: "h")
        #expect(try await store.formExists(id: "f", includingDeleted: false))
    }

    @Test func aClosedStoreIsUnavailable() async throws {
        let store = try await PostgresFormStore(settings: try PostgresTestCluster.shared().freshDatabase())
        _ = try await store.saveFormVersion(formID: "f", definition: "{}", title: "F", contentHash: "h")
        store.close()
        do {
            _ = try await store.currentForm(id: "f")
            Issue.record("a closed store answered")
        } catch let error as StoreError {
            #expect(error.code == "store_unavailable")
        }
    }

    @Test func anUnknownDatabaseIsUnavailableNamingTheServersReason() async throws {
        var settings = try PostgresTestCluster.shared().freshDatabase()
        settings.database = "no_such_database"
        do {
            _ = try await PostgresFormStore(settings: settings)
            Issue.record("a store opened a database that does not exist")
        } catch let error as StoreError {
            #expect(error.code == "store_unavailable")
            #expect(error.description.contains("no_such_database"), "\(error)")
        }
    }
}
