/// The outcome of ``FormDefinition/validate(_:options:)``.
public struct ValidationResult: Sendable {
    /// Every error, in form order (unknown fields after the known ones of their level).
    public var errors: [FieldError]
    /// The accepted values as the server stores them: typed (numbers as numbers, a state as its
    /// code, an upload id as the upload's facts), nested as the groups nest, without hidden or
    /// empty inputs.
    public var values: JSONValue
    /// The upload ids that `values` holds, in form order: the uploads to bind to the submission
    /// when it is stored.
    public var fileIDs: [String] = []
    /// The value of each visible computed input (`formula`), by key path (`items[0].total`), as
    /// computed: null when empty, and listed also when the input's own rules refuse it (the errors
    /// say so), so a client can show it. Empty for a form without formulas.
    public var computed: JSONObject {
        get { computedValues ?? JSONObject() }
        set { computedValues = newValue }
    }
    /// ``computed``; nil for a form without formulas, so that its results hold no more to release
    /// than before formulas existed.
    var computedValues: JSONObject?
    /// The languages the messages of ``errors`` are written in: the built-in messages' first, then
    /// the form's where its own `messages` would be in another (for `Content-Language`); empty when
    /// there are no errors.
    public var messageLanguages: [String] {
        guard let languages else { return [] }
        return LanguageTag.same(languages.builtIn, languages.form) ? [languages.builtIn] : [languages.builtIn, languages.form]
    }
    /// ``messageLanguages``, kept as two tags (short ones hold no storage to release) rather than an
    /// array every result would carry.
    var languages: (builtIn: String, form: String)?
    /// Whether there are no errors.
    public var isValid: Bool { errors.isEmpty }
}
