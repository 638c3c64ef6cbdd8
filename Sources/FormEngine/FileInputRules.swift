/// What a `file` input takes: which media types, how large a file, how many files. A server checks
/// an upload against them as it arrives; ``FormDefinition/validate(_:options:)`` checks them again
/// on the submission that names the upload.
public struct FileInputRules: Sendable, Equatable {
    /// The input's key path without repeat indices (`photo`, `addresses.photo`): the field an
    /// upload for it is made for, whichever repeat item it goes to.
    public let path: String
    /// Media types (`image/png`) and patterns (`image/*`), lowercased; nil accepts any type.
    public let accept: [String]?
    /// Largest file, in bytes.
    public let maxSize: Int
    /// Most files the input holds; above 1 its value is an array.
    public let maxFiles: Int

    /// `maxSize` when the definition gives none: 10 MiB.
    static let defaultMaxSize = 10_485_760
    /// The most `maxFiles` may be.
    static let maximumFiles = 100

    init(path: String, accept: [String]?, maxSize: Int, maxFiles: Int) {
        self.path = path
        self.accept = accept
        self.maxSize = maxSize
        self.maxFiles = maxFiles
    }

    /// Whether a file of `mediaType` (a `Content-Type`, parameters such as `; charset=utf-8`
    /// ignored) may be attached; letter case does not matter.
    public func accepts(mediaType: String) -> Bool {
        guard let accept else { return true }
        let essence = Self.trimmed(mediaType.prefix { $0 != ";" }).lowercased()
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return false }
        return accept.contains { pattern in
            let wanted = pattern.split(separator: "/", omittingEmptySubsequences: false)
            return (wanted[0] == "*" || wanted[0] == parts[0]) && (wanted[1] == "*" || wanted[1] == parts[1])
        }
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = text.firstIndex(where: { !isSpace($0) }), let end = text.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return text[start...end]
    }

    /// Whether `text` is an `accept` entry: `type/subtype`, `type/*` or `*/*`, each name as RFC 6838
    /// allows (a letter or digit, then up to 126 of letters, digits and `!#$&-^_.+`).
    static func isMediaRange(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        if parts[1] == "*" { return parts[0] == "*" || isName(parts[0]) }
        return isName(parts[0]) && isName(parts[1])
    }

    private static func isName(_ name: Substring) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, isAlphanumeric(first), bytes.count <= 127 else { return false }
        return bytes.allSatisfy { isAlphanumeric($0) || "!#$&-^_.+".utf8.contains($0) }
    }

    private static func isAlphanumeric(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z"))
            || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
    }

    /// The same rules at `path`, once the input's place in the form is known.
    func placed(at path: String) -> FileInputRules {
        FileInputRules(path: path, accept: accept, maxSize: maxSize, maxFiles: maxFiles)
    }
}
