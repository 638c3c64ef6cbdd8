import Configuration
import Foundation

/// The configuration file as swift-configuration reads it, without `adminTokens`: its JSON snapshot
/// refuses a list of objects, and ``AdminToken/parse(_:key:)`` reads that list from the file instead.
struct SettingsFileSnapshot: FileConfigSnapshot {
    typealias ParsingOptions = JSONSnapshot.ParsingOptions

    private let settings: JSONSnapshot

    init(data: RawSpan, providerName: String, parsingOptions: ParsingOptions) throws {
        var object = try JSONSerialization.jsonObject(with: data.withUnsafeBytes { Data($0) }) as? [String: Any] ?? [:]
        object["adminTokens"] = nil
        let rest = try JSONSerialization.data(withJSONObject: object)
        settings = try rest.withUnsafeBytes { bytes in
            try JSONSnapshot(data: RawSpan(_unsafeBytes: bytes), providerName: providerName, parsingOptions: parsingOptions)
        }
    }

    var providerName: String { settings.providerName }
    var description: String { settings.description }
    var debugDescription: String { settings.debugDescription }

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try settings.value(forKey: key, type: type)
    }
}
