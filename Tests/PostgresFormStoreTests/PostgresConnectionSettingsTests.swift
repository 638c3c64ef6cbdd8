import PostgresFormStore
import Testing

@Suite struct PostgresConnectionSettingsTests {
    @Test func aTCPURLGivesEveryPart() throws {
        let settings = try PostgresConnectionSettings(url: "postgres://form%40house:s%3Acret@db.example:6432/forms?sslmode=require")
        #expect(settings == PostgresConnectionSettings(
            endpoint: .tcp(host: "db.example", port: 6432), username: "form@house", password: "s:cret",
            database: "forms", sslMode: .require))
    }

    @Test func defaultsAreLibpqs() throws {
        let settings = try PostgresConnectionSettings(url: "postgresql://ana@localhost")
        #expect(settings == PostgresConnectionSettings(
            endpoint: .tcp(host: "localhost", port: 5432), username: "ana", password: nil, database: "ana",
            sslMode: .prefer))
    }

    @Test(arguments: [
        ("disable", PostgresConnectionSettings.SSLMode.disable), ("prefer", .prefer), ("require", .require),
        ("verify-full", .verifyFull),
    ])
    func everySSLModeIsRead(_ name: String, _ mode: PostgresConnectionSettings.SSLMode) throws {
        #expect(try PostgresConnectionSettings(url: "postgres://ana@h/db?sslmode=\(name)").sslMode == mode)
    }

    @Test func aSocketDirectoryInHostMeansAUnixSocket() throws {
        let settings = try PostgresConnectionSettings(url: "postgres://ana@/forms?host=/run/postgresql")
        #expect(settings.endpoint == .unixSocket(directory: "/run/postgresql", port: 5432))
        let withPort = try PostgresConnectionSettings(url: "postgres://ana@:5433/forms?host=/tmp/pg&sslmode=disable")
        #expect(withPort.endpoint == .unixSocket(directory: "/tmp/pg", port: 5433))
    }

    @Test(arguments: [
        ("not a url at all", PostgresSettingsError.notAURL, "is not a URL"),
        ("mysql://ana:pw@h/db", .unsupportedScheme("mysql"), "scheme is mysql"),
        ("postgres://h/db", .missingUsername, "names no user"),
        ("postgres://ana:pw@/db", .missingHost, "names no host"),
        ("postgres://ana:pw@h:0/db", .invalidPort(0), "port 0"),
        ("postgres://ana:pw@h/db/x", .invalidDatabaseName("db/x"), "database name db/x"),
        ("postgres://ana:pw@h/db?sslmode=verify-ca", .unsupportedSSLMode("verify-ca"), "sslmode verify-ca"),
        ("postgres://ana:pw@h/db?application_name=x", .unsupportedParameter("application_name"), "parameter application_name"),
        ("postgres://ana:pw@/db?host=run/pg", .socketDirectoryNotAbsolute("run/pg"), "host parameter run/pg"),
        ("postgres://ana:pw@h/db?host=/run/pg", .hostAndSocketDirectory, "both a host and a socket"),
        ("postgres://ana:pw@/db?host=/run/pg&sslmode=require", .tlsOverUnixSocket(.require), "sslmode=require"),
    ])
    func aBadURLIsRefusedSayingWhatIsWrong(_ url: String, _ expected: PostgresSettingsError, _ phrase: String) {
        #expect(throws: expected) { try PostgresConnectionSettings(url: url) }
        #expect(expected.description.contains(phrase), "\(expected)")
        #expect(!expected.description.contains("pw"))
    }

    @Test func theDescriptionHidesThePassword() throws {
        let tcp = try PostgresConnectionSettings(url: "postgres://ana:hunter2@db:5432/forms?sslmode=verify-full")
        #expect(tcp.description == "postgres://ana:***@db:5432/forms?sslmode=verify-full")
        #expect(!"\(tcp)".contains("hunter2") && !String(reflecting: tcp).contains("hunter2"))
        let socket = try PostgresConnectionSettings(url: "postgres://ana@/forms?host=/run/pg")
        #expect(socket.description == "postgres://ana@:5432/forms?host=/run/pg")
    }
}
