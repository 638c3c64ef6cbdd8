/// A setting that cannot be used, named by its key so the operator can fix it.
public struct ConfigurationError: Error, CustomStringConvertible {
    /// The setting's key, or the flag or file at fault.
    public var key: String
    /// What is wrong with it, as the end of a sentence.
    public var message: String
    public var description: String { "configuration '\(key)': \(message)" }

    /// An error about `key`.
    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }
}
