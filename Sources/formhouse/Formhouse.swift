import ArgumentParser
import FormEngine
import FormhouseApp
import Foundation
import HTTPServer
import Logging

@main
struct Formhouse: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "formhouse",
        abstract: "A backend for server-driven forms: validates, stores and forwards submissions.",
        version: "formhouse \(Version.current)",
        subcommands: [Serve.self, Check.self, Import.self, Settings.self, Migrate.self, Audit.self, Version.self],
        defaultSubcommand: Serve.self
    )
}

/// `formhouse serve`: flags override `FORMHOUSE_*` variables, which override the config file.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start the server.")

    static let defaultConfig = "config/formhouse.json"

    @Option(help: "JSON configuration file (missing is fine; default: \(Self.defaultConfig)).") var config: String?
    @OptionGroup var flags: SettingFlags
    @Option(name: .customLong("port-file"), help: "Write the bound port to this file once listening (for scripts using port 0).") var portFile: String?

    func run() async throws {
        let file = config ?? Self.defaultConfig
        let settings = try await AppConfiguration.load(file: file, overrides: flags.overrides)

        let level = settings.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "formhouse")
        DescriptorBudget.raiseOpenFileLimit(logger: logger)
        if !FileManager.default.fileExists(atPath: file) {
            // Fine for the default path; a path given on purpose that is not there is likely a typo.
            let message: Logger.Message = "no configuration file: the defaults, FORMHOUSE_* variables and flags apply"
            if config == nil { logger.info(message, metadata: ["file": "\(file)"]) }
            else { logger.warning(message, metadata: ["file": "\(file)"]) }
        }
        for name in AppConfiguration.unknownEnvironmentVariables() {
            logger.warning("ignored: this FORMHOUSE_ variable names no setting (see docs/configuration.md)",
                           metadata: ["variable": "\(name)"])
        }
        if settings.adminTokens.isEmpty {
            logger.warning("no admin token configured: the admin API answers 401 to everyone (set FORMHOUSE_ADMIN_TOKENS)")
        }
        let app = try await FormhouseApplication(configuration: settings, logger: logger, registry: MetricsBootstrap.registry())
        let bound = try app.start()
        if let portFile {
            do {
                try String(bound).write(toFile: portFile, atomically: true, encoding: .utf8)
            } catch {
                // A script waiting for the file would wait for ever on a server it cannot reach.
                await app.shutdown()
                throw ConfigurationError(key: "--port-file", message: "\(portFile) cannot be written: \(error.localizedDescription)")
            }
        }
        try await app.run()
    }
}

/// `formhouse check FILE…`: validates definitions offline; exit status 1 when any has a problem.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check form definitions and print every problem with its JSON Pointer.")

    @Argument(help: "Definition files (JSON).") var files: [String]

    func run() throws {
        var failed = false
        for file in files {
            let bytes: [UInt8]
            do {
                bytes = try FileBytes.read(file)
            } catch {
                print("\(file): cannot be read: \(error.reason)")
                failed = true
                continue
            }
            do throws(DefinitionErrors) {
                let definition = try FormDefinition(json: bytes)
                // The server refuses such an id on upload; a check that passed it would mislead.
                if let id = definition.id, !FormIdentifier.isValid(id) {
                    throw DefinitionErrors(problems: [FormIdentifier.problem])
                }
                print("\(file): ok (\(definition.inputPaths.count) inputs)")
            } catch {
                failed = true
                // A bad id is listed with the definition's other problems, as the server lists them.
                var problems = error.problems
                if !problems.contains(where: { $0.pointer == "/id" }),
                   let idProblem = FormIdentifier.problem(inDefinition: bytes) {
                    problems.insert(idProblem, at: 0)
                }
                for problem in problems { print("\(file): \(problem.pointer): \(problem.message) [\(problem.code.rawValue)]") }
            }
        }
        if failed { throw ExitCode(1) }
    }
}

/// `formhouse settings`: the table of settings that docs/configuration.md holds, made from their declaration.
struct Settings: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every setting (key, environment variable, flag, type, default, bounds) as a Markdown table.")

    @Option(help: ArgumentHelp(
        "Replace the table between \(SettingsTable.begin) and \(SettingsTable.end) in this file instead of printing it.",
        valueName: "file"))
    var update: String?

    func run() throws {
        guard let update else { return print(SettingsTable.markdown, terminator: "") }
        let document: String
        do {
            document = try String(contentsOfFile: update, encoding: .utf8)
        } catch {
            throw ValidationError("\(update) cannot be read: \(error.localizedDescription)")
        }
        guard let updated = SettingsTable.update(document) else {
            throw ValidationError("\(update) has no \(SettingsTable.begin) … \(SettingsTable.end) markers")
        }
        try updated.write(toFile: update, atomically: true, encoding: .utf8)
    }
}

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the version.")
    static let current = "0.1.0"

    func run() { print("formhouse \(Self.current)") }
}
