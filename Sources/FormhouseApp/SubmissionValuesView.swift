import FormEngine
import FormStore
import HTTPServer

/// How the admin lists, the single submission and the exports show stored values: the values of
/// sensitive inputs left out (their keys absent), or, for an owner who asks with
/// `?sensitive=include`, opened.
struct SubmissionValuesView: Sendable {
    /// Whether sensitive values are shown, opened.
    let includesSensitive: Bool
    let sensitive: SensitiveValues
    /// The definition of each version of the form that has sensitive inputs; other versions' values
    /// are shown as stored.
    let definitions: [Int: FormDefinition]

    init(includesSensitive: Bool, sensitive: SensitiveValues, definitions: some Sequence<(Int, FormDefinition)>) {
        self.includesSensitive = includesSensitive
        self.sensitive = sensitive
        self.definitions = Dictionary(definitions.filter { $0.1.hasSensitiveInputs }, uniquingKeysWith: { first, _ in first })
    }

    /// The record's values as this view shows them.
    func values(of record: SubmissionRecord) throws -> JSONValue {
        let stored = SubmissionJSON.values(of: record)
        guard let definition = definitions[record.formVersion] else { return stored }
        guard includesSensitive else { return SensitiveValues.redacted(stored, definition: definition) }
        return try sensitive.open(stored, rowID: record.id, definition: definition)
    }

    /// Whether the version's submissions hold sensitive values.
    func hasSensitiveInputs(version: Int) -> Bool {
        definitions[version] != nil
    }
}

extension Request {
    /// `?sensitive=include`: whether the caller asks for the values of sensitive inputs, which only
    /// an owner may (403 `forbidden` naming `owner` for any other role); absent, they are left out.
    func includesSensitiveValues(caller: AdminCaller) throws -> Bool {
        guard let value = try queryValue("sensitive") else { return false }
        guard value == "include" else {
            throw APIProblem(.invalidParameter, "'sensitive' may only be 'include'; without it, sensitive values are left out.")
        }
        guard caller.role == .owner else {
            throw APIProblem(.forbidden, "Token '\(caller.name)' is \(caller.role.withArticle); the values of sensitive inputs "
                + "(?sensitive=include) need \(AdminRole.owner.withArticle).")
        }
        return true
    }
}
