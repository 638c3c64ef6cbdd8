/// The check every key passes before it names a file or an S3 object.
///
/// Keys are relative paths of `/`-separated components. A component may not be empty or start with
/// a dot (which refuses `.`, `..` and the local storage's own `.partial`); no control characters,
/// NUL included; at most 512 bytes. Keys are our own ids, but a key that could escape the storage's
/// directory or prefix is refused however it arrives.
enum BlobKey {
    static let maximumLength = 512

    /// The key's components, or `badKey` saying why it is refused.
    static func components(of key: String) throws(BlobStorageError) -> [Substring] {
        if key.isEmpty { throw .badKey(key: key, reason: "it is empty") }
        if key.utf8.count > maximumLength { throw .badKey(key: key, reason: "it is longer than \(maximumLength) bytes") }
        if key.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw .badKey(key: key, reason: "it contains a control character or NUL")
        }
        if key.hasPrefix("/") { throw .badKey(key: key, reason: "it is absolute") }
        let components = key.split(separator: "/", omittingEmptySubsequences: false)
        for component in components {
            if component.isEmpty { throw .badKey(key: key, reason: "it has an empty path component") }
            if component.hasPrefix(".") { throw .badKey(key: key, reason: "a path component starts with a dot") }
        }
        return components
    }
}
