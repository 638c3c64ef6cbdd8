import Configuration
import Foundation

/// One setting an operator can give, declared once in ``AppConfiguration/settings``: the reader, the
/// configuration file's check, `formhouse serve`'s flags and the table in docs/configuration.md all
/// come from it.
public struct Setting: Sendable {
    /// The JSON type a setting has in the configuration file; the environment and flags give its text.
    public enum Kind: Sendable {
        case string, wholeNumber, number, boolean, strings, numbers
        /// Admin tokens: in the file, strings or token objects; in the environment, a comma-separated list.
        case tokens

        /// As the documentation names it: "whole number".
        public var name: String {
            switch self {
            case .string: "string"
            case .wholeNumber: "whole number"
            case .number: "number"
            case .boolean: "true or false"
            case .strings: "list of strings"
            case .numbers: "list of numbers"
            case .tokens: "list of tokens"
            }
        }

        /// As a message names it: "must be a whole number".
        var phrase: String { self == .boolean ? name : "a " + name }
    }

    /// The key in the JSON file, sections joined by dots: `webhooks.timeoutSeconds`.
    public let key: String
    /// The long name of the `formhouse serve` flag without its dashes (`data-dir`), nil when there is
    /// none. A boolean's flag takes no value and sets it to true.
    public let flag: String?
    /// Its JSON type in the file.
    public let kind: Kind
    /// Never logged, echoed in a message or shown as a default.
    public let isSecret: Bool
    /// What the setting does, in one line: the flag's help and the documentation's.
    public let summary: String
    /// The values allowed, as the documentation and the error messages word them; empty when any
    /// value of the kind is.
    public let bounds: String
    /// Reads the setting into the configuration, then refuses a value out of bounds. Settings are read
    /// in declaration order, so a bound may depend on a setting declared before.
    let read: @Sendable (ConfigReader, inout AppConfiguration) throws -> Void
    /// The setting's value in `configuration`, as the documentation shows a default; a secret's is
    /// only "none" or "(secret)".
    let show: @Sendable (_ configuration: AppConfiguration) -> String
    /// The setting's value in `configuration`, to compare (tests); never to print, as it holds secrets.
    let value: @Sendable (_ configuration: AppConfiguration) -> AnyHashable

    /// `FORMHOUSE_` and the key in upper snake case, as swift-configuration names variables:
    /// `rateLimit.perSecond` is `FORMHOUSE_RATE_LIMIT_PER_SECOND`.
    public var environmentName: String { Self.environmentName(of: key) }

    static func environmentName(of key: String) -> String {
        var name = "FORMHOUSE"
        for component in key.split(separator: ".") {
            name += "_"
            for character in component {
                if character.isUppercase { name += "_" }
                name += character.uppercased()
            }
        }
        return name
    }

    /// `read` gets the value so far (the default) and the settings declared before, and returns the
    /// value to hold or throws.
    private init<Value: Hashable>(
        _ key: String, _ property: WritableKeyPath<AppConfiguration, Value> & Sendable, flag: String?, kind: Kind,
        isSecret: Bool = false, bounds: String = "", summary: String,
        read: @escaping @Sendable (ConfigReader, Value, AppConfiguration) throws -> Value,
        show: @escaping @Sendable (Value) -> String
    ) {
        self.key = key
        self.flag = flag
        self.kind = kind
        self.isSecret = isSecret
        self.summary = summary
        self.bounds = bounds
        self.read = { config, configuration in
            configuration[keyPath: property] = try read(config, configuration[keyPath: property], configuration)
        }
        self.show = { show($0[keyPath: property]) }
        self.value = { $0[keyPath: property] }
    }
}

/// The units a number's bounds and default are shown in.
enum SettingUnit: Sendable {
    case plain, bytes, seconds

    func show(_ value: Double) -> String {
        switch self {
        case .plain: return Self.digits(value)
        case .seconds:
            let days = value / 86_400
            guard days >= 1, days.rounded() == days else { return Self.digits(value) + " s" }
            return Self.digits(value) + " s (" + Self.digits(days) + (days == 1 ? " day)" : " days)")
        case .bytes:
            for (size, name) in [(1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")]
            where value >= Double(size) && value.truncatingRemainder(dividingBy: Double(size)) == 0 {
                return Self.digits(value) + " (" + Self.digits(value / Double(size)) + " " + name + ")"
            }
            return Self.digits(value)
        }
    }

    /// `10` rather than `10.0`, and no exponent for the numbers a setting can hold.
    static func digits(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// A lower bound that is another setting's value (`maxPendingBodyBytes` holds at least one whole body).
struct SettingFloor: Sendable {
    /// As the bounds name it: `webhooks.timeoutSeconds + 1`.
    let name: String
    let value: @Sendable (AppConfiguration) -> Double
}

extension Setting {
    static func wholeNumber(
        _ key: String, _ property: WritableKeyPath<AppConfiguration, Int> & Sendable, flag: String? = nil,
        range: ClosedRange<Int>, unit: SettingUnit = .plain, atLeast floor: SettingFloor? = nil, _ summary: String
    ) -> Setting {
        let limits = Double(range.lowerBound)...Double(range.upperBound)
        return Setting(
            key, property, flag: flag, kind: .wholeNumber, bounds: rangeBounds(limits, unit: unit, floor: floor), summary: summary,
            read: { config, current, configuration in
                let value = config.int(forKey: ConfigKey(key), default: current)
                try checkRange(key, Double(value), limits, unit: unit, floor: floor, in: configuration)
                return value
            },
            show: { unit.show(Double($0)) })
    }

    /// NaN and infinities are out of every range: durations become integers further on, where they trap.
    static func number(
        _ key: String, _ property: WritableKeyPath<AppConfiguration, Double> & Sendable, flag: String? = nil,
        range: ClosedRange<Double>, unit: SettingUnit = .plain, atLeast floor: SettingFloor? = nil, _ summary: String
    ) -> Setting {
        Setting(
            key, property, flag: flag, kind: .number, bounds: rangeBounds(range, unit: unit, floor: floor), summary: summary,
            read: { config, current, configuration in
                let value = config.double(forKey: ConfigKey(key), default: current)
                try checkRange(key, value, range, unit: unit, floor: floor, in: configuration)
                return value
            },
            show: unit.show)
    }

    private static func rangeBounds(_ range: ClosedRange<Double>, unit: SettingUnit, floor: SettingFloor?) -> String {
        "between \(unit.show(range.lowerBound)) and \(unit.show(range.upperBound))"
            + (floor.map { ", and at least \($0.name)" } ?? "")
    }

    private static func checkRange(
        _ key: String, _ value: Double, _ range: ClosedRange<Double>, unit: SettingUnit, floor: SettingFloor?,
        in configuration: AppConfiguration
    ) throws {
        let least = floor.map { $0.value(configuration) }
        guard !range.contains(value) || least.map({ value < $0 }) == true else { return }
        var message = "must be " + rangeBounds(range, unit: unit, floor: floor)
        if let least { message += ", which is " + unit.show(least) }
        throw ConfigurationError(key: key, message: message)
    }

    static func boolean(
        _ key: String, _ property: WritableKeyPath<AppConfiguration, Bool> & Sendable, flag: String? = nil, _ summary: String
    ) -> Setting {
        Setting(
            key, property, flag: flag, kind: .boolean, summary: summary,
            read: { config, current, _ in config.bool(forKey: ConfigKey(key), default: current) },
            show: { String($0) })
    }

    /// A host name or a directory: an empty path is the working directory to Foundation, not what an
    /// operator means; nor is a control character.
    static func path(
        _ key: String, _ property: WritableKeyPath<AppConfiguration, String> & Sendable, flag: String? = nil, _ summary: String
    ) -> Setting {
        Setting(
            key, property, flag: flag, kind: .string, bounds: "not empty, no control characters", summary: summary,
            read: { config, current, _ in
                let value = config.string(forKey: ConfigKey(key), default: current)
                if value.trimmingCharacters(in: .whitespaces).isEmpty {
                    throw ConfigurationError(key: key, message: "must not be empty")
                }
                if value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                    throw ConfigurationError(key: key, message: "must not contain control characters")
                }
                return value
            },
            show: { $0 })
    }

    /// One of a few words, read in any case (`full` is `FULL`) and held as its type.
    static func choice<Value: Hashable & Sendable>(
        _ key: String, _ property: WritableKeyPath<AppConfiguration, Value> & Sendable, flag: String? = nil,
        _ choices: [(word: String, value: Value)], _ summary: String
    ) -> Setting {
        let words = choices.map(\.word)
        let bounds = words.count == 2 ? "\(words[0]) or \(words[1])" : "one of " + words.joined(separator: ", ")
        return Setting(
            key, property, flag: flag, kind: .string, bounds: bounds, summary: summary,
            read: { config, current, _ in
                guard let word = config.string(forKey: ConfigKey(key)) else { return current }
                guard let match = choices.first(where: { $0.word.caseInsensitiveCompare(word) == .orderedSame }) else {
                    throw ConfigurationError(key: key, message: "must be " + bounds)
                }
                return match.value
            },
            show: { value in choices.first { $0.value == value }?.word ?? "" })
    }

    /// A list of text; each item's surrounding spaces go, and so do empty items (`a,,b`).
    static func strings(
        _ key: String, _ property: WritableKeyPath<AppConfiguration, [String]> & Sendable, flag: String? = nil, _ summary: String
    ) -> Setting {
        Setting(
            key, property, flag: flag, kind: .strings, summary: summary,
            read: { config, current, _ in
                config.stringArray(forKey: ConfigKey(key), default: current)
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            },
            show: list(of:))
    }

    /// Admin bearer tokens: the configuration file's list (plain tokens or `{"name", "token", "role",
    /// "forms"}`, read by ``AdminToken/parse(_:key:)`` before the settings) unless the environment
    /// gives a comma-separated list, whose tokens are owners.
    static func tokens(
        _ key: String, _ property: WritableKeyPath<AppConfiguration, [AdminToken]> & Sendable, _ summary: String
    ) -> Setting {
        Setting(
            key, property, flag: nil, kind: .tokens, isSecret: true,
            bounds: "each plain token at least \(AdminToken.minLength) characters; see the example below", summary: summary,
            read: { config, current, _ in
                guard let tokens = config.stringArray(forKey: ConfigKey(key), isSecret: true) else { return current }
                return AdminToken.owners(try tokens.map { try AdminToken.plain($0, key: key) })
            },
            show: { $0.isEmpty ? "none" : "(secret)" })
    }

    /// A secret with no default; `problem` says what is wrong with a value that cannot be used, in
    /// words that never repeat the value (nil when it can). A flag, when given, is a command line's,
    /// which other users of the machine can read: its value is checked further by the command.
    static func secret(
        _ key: String, _ property: WritableKeyPath<AppConfiguration, String?> & Sendable, flag: String? = nil,
        bounds: String, problem: @escaping @Sendable (String) -> String?, _ summary: String
    ) -> Setting {
        optionalText(key, property, flag: flag, isSecret: true, bounds: bounds, problem: problem, summary)
    }

    /// Text with no default; `problem` says what is wrong with a value that cannot be used (nil when
    /// it can). A secret one never shows its value, in errors or in `formhouse config`.
    static func optionalText(
        _ key: String, _ property: WritableKeyPath<AppConfiguration, String?> & Sendable, flag: String? = nil,
        isSecret: Bool = false, bounds: String, problem: @escaping @Sendable (String) -> String?, _ summary: String
    ) -> Setting {
        Setting(
            key, property, flag: flag, kind: .string, isSecret: isSecret, bounds: bounds, summary: summary,
            read: { config, current, _ in
                guard let value = config.string(forKey: ConfigKey(key), isSecret: isSecret) else { return current }
                if let problem = problem(value) {
                    throw ConfigurationError(key: key, message: problem.isEmpty ? "must be \(bounds)" : "must be \(bounds) (\(problem))")
                }
                return value
            },
            show: { value in value.map { isSecret ? "(secret)" : $0 } ?? "none" })
    }

    /// A list of numbers, each in `range`.
    static func numbers(
        _ key: String, _ property: WritableKeyPath<AppConfiguration, [Double]> & Sendable, flag: String? = nil,
        count: ClosedRange<Int>, each range: ClosedRange<Double>, unit: SettingUnit = .plain, _ summary: String
    ) -> Setting {
        let bounds = "\(count.lowerBound) to \(count.upperBound) items, each " + rangeBounds(range, unit: unit, floor: nil)
        return Setting(
            key, property, flag: flag, kind: .numbers, bounds: bounds, summary: summary,
            read: { config, current, _ in
                let values = config.doubleArray(forKey: ConfigKey(key), default: current)
                guard count.contains(values.count), values.allSatisfy(range.contains) else {
                    throw ConfigurationError(key: key, message: "must list " + bounds)
                }
                return values
            },
            show: { list(of: $0.map(SettingUnit.digits)) })
    }

    private static func list(of items: [String]) -> String {
        items.isEmpty ? "none" : items.joined(separator: ", ")
    }
}
