/// The engine's own error messages, in every language it ships: `Messages/<tag>.json`, one file per
/// language that a translator edits without reading Swift (docs/engine.md, "Error messages"),
/// compiled into the library.
public enum BuiltInMessages {
    /// The languages the messages are written in, English first (the fallback).
    public static let languages = ["en", "pt-BR", "es"]

    /// Which file answers a tag: each language's own, and `pt` for Brazilian Portuguese, so that a
    /// person asking for `pt-PT` or `pt` reads Portuguese rather than English.
    private static let files: [(tag: String, file: [UInt8])] = [
        ("en", PackageResources.en_json), ("pt-BR", PackageResources.pt_BR_json), ("es", PackageResources.es_json),
        ("pt", PackageResources.pt_BR_json),
    ]

    /// Every language's messages by key, read once.
    private static let catalogs: [String: [String: String]] = {
        var catalogs: [String: [String: String]] = [:]
        for (tag, file) in files {
            catalogs[tag] = (try? JSONValue(parsing: file))?.objectValue?.members.reduce(into: [:]) { $0[$1.key] = $1.value.stringValue } ?? [:]
        }
        return catalogs
    }()

    /// The message texts of `language` (one of ``languages``) by key, as its file gives them: a
    /// key's text, with `{name}` placeholders where values go.
    public static func texts(of language: String) -> [String: String] {
        catalogs[files.first { LanguageTag.same($0.tag, language) }?.tag ?? "en"] ?? [:]
    }

    /// The language to write messages in for `preferences` (RFC 4647 lookup), or, when none is
    /// asked for, `fallback` if there are messages in it, else English.
    public static func language(for preferences: LanguagePriorityList, fallback: String) -> String {
        let tags = files.map(\.tag)
        return preferences.lookup(tags) ?? LanguagePriorityList([fallback]).lookup(tags) ?? "en"
    }

    /// The message `key` in `language`, its placeholders filled from `values`; English when that
    /// language's file lacks it.
    static func message(_ key: MessageKey, in language: String, _ values: KeyValuePairs<String, String> = [:]) -> String {
        let template = texts(of: language)[key.rawValue] ?? catalogs["en"]?[key.rawValue] ?? key.rawValue
        guard !values.isEmpty else { return template }
        // One pass, so that a value holding `{name}` (an upload's media type) is not filled in itself.
        var text = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            let name = rest[rest.index(after: open)..<close]
            text += rest[..<open]
            if let value = values.first(where: { $0.key == name })?.value { text += value } else { text += rest[open...close] }
            rest = rest[rest.index(after: close)...]
        }
        return text + rest
    }
}

/// The built-in messages' keys in `Messages/<tag>.json`: an error code, or the code and a detail
/// when a code has several messages (`required.switch`).
enum MessageKey: String, CaseIterable {
    case required, requiredSwitch = "required.switch"
    case repeatExactly = "repeat.exactly", repeatOne = "repeat.one", repeatBetween = "repeat.between"
    case typeGroup = "type.group", typeRepeat = "type.repeat", typeItem = "type.item", typeText = "type.text",
         typeFiles = "type.files", typeLargeNumber = "type.largeNumber"
    case jsonNull = "jsonType.null", jsonBoolean = "jsonType.boolean", jsonNumber = "jsonType.number",
         jsonString = "jsonType.string", jsonArray = "jsonType.array", jsonObject = "jsonType.object"
    case unknown
    case integer, integerRange = "integer.range", integerLargeNumber = "integer.largeNumber"
    case decimal, decimalDigits = "decimal.digits", decimalPlaces, decimalPlacesNone = "decimalPlaces.none"
    case date, minDate = "minValue.date", maxDate = "maxValue.date"
    case minValue, maxValue, minLength, maxLength
    case email, phone, usPhone = "phone.us", numerical, numericalNumber = "numerical.number", state, pattern, option, boolean
    case maxFiles, maxFilesOne = "maxFiles.one", fileType, maxSize
    case fileTypeContent = "fileType.content", fileTypeUnknownContent = "fileType.unknownContent"
    case fileTwice = "file.twice", fileOtherForm = "file.otherForm", fileOtherField = "file.otherField",
         fileUnfinished = "file.unfinished", fileBound = "file.bound", fileUnknown = "file.unknown"
    // The formworks profile's hints, in its descriptions.
    case profileInteger = "profile.integer", profileDecimal = "profile.decimal", profileDate = "profile.date",
         profileSelectOne = "profile.selectOne", profileSelectMany = "profile.selectMany", profileSwitchOn = "profile.switchOn",
         profileSwitch = "profile.switch", profileUSState = "profile.usstate", profileFiles = "profile.files"

    /// The key of the name of `value`'s JSON type, for the `{type}` of the `type.*` messages.
    static func jsonType(of value: JSONValue) -> MessageKey {
        switch value {
        case .null: .jsonNull
        case .bool: .jsonBoolean
        case .number: .jsonNumber
        case .string: .jsonString
        case .array: .jsonArray
        case .object: .jsonObject
        }
    }
}
