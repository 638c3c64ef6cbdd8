import FormEngine
import FormStore
import Foundation
import Logging

/// Loads `config/forms/*.json` into an empty or new database: each file whose form id has never
/// existed is stored, so sample forms appear at first start and a deleted one stays deleted.
enum SampleForms {
    /// Loads the samples into a store that may not answer yet (a shared database starting after this
    /// node), trying again with a growing pause while it is unavailable, until done or cancelled.
    static func loadWhenReachable(from directory: String, into catalog: FormCatalog, store: any FormStore, logger: Logger) async {
        var pause = Duration.milliseconds(250)
        var told = false
        while !Task.isCancelled {
            do {
                try await load(from: directory, into: catalog, store: store, logger: logger)
                return
            } catch StoreError.unavailable(let reason) {
                if !told {
                    logger.notice("sample forms wait for the database", metadata: ["reason": "\(reason)"])
                    told = true
                }
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(10))
            } catch {
                logger.error("sample forms could not be loaded", metadata: ["error": "\(error)"])
                return
            }
        }
    }

    static func load(from directory: String, into catalog: FormCatalog, store: any FormStore, logger: Logger) async throws {
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else {
            logger.notice("no sample forms directory", metadata: ["path": "\(directory)"])
            return
        }
        for name in names.sorted() where name.hasSuffix(".json") {
            let file = url.appendingPathComponent(name)
            // One unreadable entry (a directory, a dangling link) is skipped like a broken file;
            // thrown, it would stop every start of the server.
            let kind = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.type] as? FileAttributeType
            guard kind == .typeRegular || kind == .typeSymbolicLink, let data = FileManager.default.contents(atPath: file.path) else {
                logger.error("sample form cannot be read", metadata: ["file": "\(name)"])
                continue
            }
            let bytes = [UInt8](data)
            let definition: FormDefinition
            do {
                definition = try FormDefinition(json: bytes)
            } catch {
                let problems = error.problems.map { "\($0.pointer): \($0.message)" }.joined(separator: "; ")
                logger.error("sample form rejected", metadata: ["file": "\(name)", "problems": "\(problems)"])
                continue
            }
            let id = definition.id ?? String(name.dropLast(5))
            guard FormIdentifier.isValid(id) else {
                logger.error("sample form has an invalid id", metadata: ["file": "\(name)", "id": "\(id)"])
                continue
            }
            if try await store.formExists(id: id, includingDeleted: true) { continue }
            let (form, _) = try await catalog.save(id: id, definition: definition)
            logger.info("sample form loaded", metadata: ["id": "\(id)", "version": "\(form.version)"])
        }
    }
}
