import FormEngine
import FormStore

/// Form versions' definitions read straight from the store, not through the catalog, whose cache is
/// for the forms being served: for work that reads many or old versions once (an export, an erasure
/// by value, the retention sweep), which would otherwise push those forms out. Parsed off the event
/// loop.
extension FormStore {
    /// One version's definition; nil when the form has no such version.
    func storedDefinition(formID: String, version: Int) async throws -> FormDefinition? {
        guard let record = try await formVersion(id: formID, version: version) else { return nil }
        return try await Offload.run { try FormDefinition(json: Array(record.definition.utf8), reading: .stored) }
    }

    /// Every version's definition, newest first.
    func storedDefinitions(formID: String) async throws -> [(version: Int, definition: FormDefinition)] {
        var definitions: [(version: Int, definition: FormDefinition)] = []
        for summary in try await formVersions(id: formID).reversed() {
            guard let definition = try await storedDefinition(formID: formID, version: summary.version) else { continue }
            definitions.append((summary.version, definition))
        }
        return definitions
    }
}
