import FormEngine
import Foundation
import HTTPServer

/// Checks the JSON configuration file's keys and value types before swift-configuration reads it.
/// Its JSON snapshot reads `true` as 1 and any non-zero number as `true`, and skips an object where a
/// value belongs: unchecked, `{"port": true}` would serve on port 1, `{"webhooks": {"allowPrivate": 2}}`
/// would turn the SSRF guard off, and a misspelled key would leave the default without a word.
enum ConfigFileCheck {
    /// Every setting the file may hold, by key path; sections (`rateLimit`) are the keys' prefixes.
    private static let settings = Dictionary(uniqueKeysWithValues: AppConfiguration.settings.map { ($0.key, $0) })

    /// Throws for the first key that is unknown or holds the wrong type; returns the file's settings,
    /// nil when there is no file.
    @discardableResult
    static func check(file: String) throws -> JSONObject? {
        // "" is no file at all; read as a path it is the working directory.
        if file.isEmpty { throw ConfigurationError(key: "--config", message: "the path is empty") }
        let data: [UInt8]
        do {
            data = try FileBytes.read(file, limit: 1 << 20)
        } catch {
            if error.errno == ENOENT { return nil }
            throw ConfigurationError(key: file, message: "the file cannot be read: \(error.reason)")
        }
        let root: JSONValue
        do {
            // A byte-order mark, as some editors save, is not part of the JSON.
            let bytes = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
            root = try JSONValue(parsing: bytes)
        } catch {
            throw ConfigurationError(key: file, message: "is not valid JSON: \(error.message) at byte \(error.offset)")
        }
        guard case .object(let object) = root else {
            throw ConfigurationError(key: file, message: "must hold a JSON object of settings")
        }
        try check(object, prefix: "", file: file)
        return object
    }

    private static func check(_ object: JSONObject, prefix: String, file: String) throws {
        for member in object.members {
            let key = prefix + member.key
            if let setting = settings[key] {
                // null is "not set", as swift-configuration reads it: the default (or the environment) applies.
                guard member.value == .null || matches(member.value, setting.kind) else {
                    // A secret's value is not repeated back, in case it lands in a log.
                    let shown = setting.isSecret ? "" : ", not \(describe(member.value))"
                    throw ConfigurationError(key: key, message: "in \(file): must be \(setting.kind.phrase)\(shown)")
                }
            } else if settings.keys.contains(where: { $0.hasPrefix(key + ".") }) {
                // A section set to null is not set, as a setting is.
                if member.value == .null { continue }
                guard case .object(let section) = member.value else {
                    throw ConfigurationError(key: key, message: "in \(file): must be an object of settings")
                }
                try check(section, prefix: key + ".", file: file)
            } else {
                throw ConfigurationError(key: key, message: "in \(file): is not a setting (see docs/configuration.md)")
            }
        }
    }

    private static func matches(_ value: JSONValue, _ kind: Setting.Kind) -> Bool {
        switch (kind, value) {
        case (.string, .string), (.boolean, .bool), (.number, .number): true
        case (.wholeNumber, .number(let n)): n.rounded() == n && abs(n) < 1e15
        case (.strings, .array(let items)): items.allSatisfy { if case .string = $0 { true } else { false } }
        case (.numbers, .array(let items)): items.allSatisfy { if case .number = $0 { true } else { false } }
        // Each item is checked by AdminToken.parse, which names its index.
        case (.tokens, .array): true
        default: false
        }
    }

    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): SettingUnit.digits(n)
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }
}
