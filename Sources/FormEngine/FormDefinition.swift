/// A form definition, decoded, normalized and with its rules compiled, ready to validate many
/// submissions.
///
/// Compile a definition once, for instance when `GET /v1/forms/{id}` answers, and keep it while the
/// form is in use: ``validate(_:options:)`` is then one walk over the compiled rules. A
/// `FormDefinition` is immutable and `Sendable`, so any thread or task may validate with it.
public struct FormDefinition: Sendable {
    /// The form's id, if the upload names one.
    public var id: String?
    /// The form's title (in ``defaultLanguage`` when it is translated).
    public var title: String
    /// The language of the form's plain texts, which every text map holds (`defaultLanguage`, a
    /// BCP 47 tag; `en` when the definition gives none).
    public let defaultLanguage: String
    /// Every language the form's texts are given in, ``defaultLanguage`` first, then the others as
    /// first spelled in the definition: what `GET /v1/forms/{id}` can answer in.
    public let languages: [String]
    /// Whether any text of the form is a map of languages, so that it is served per language.
    public let isTranslated: Bool
    /// Every input's key path in form order (`name`, `address.line1`, `addresses[].postcode`).
    public let inputPaths: [String]
    /// The key paths of the sensitive inputs (`"sensitive": true`, and every `password`), in form
    /// order and written as ``inputPaths`` are: their values are kept from anyone but the form's owners.
    public let sensitiveInputPaths: [String]
    /// Where the sensitive inputs' values stand (see ``mappingSensitiveValues(in:_:)``).
    let sensitiveTree: [SensitiveNode]

    let nodes: [FormNode]
    let steps: [Step]
    /// Size of the value table conditions read from (0 when the form has no conditions).
    let slotCount: Int
    let knownIDs: Set<String>
    let top: JSONObject
    /// Every `file` input's rules, by ``FileInputRules/path``.
    let fileInputs: [String: FileInputRules]
    /// The computed inputs' formulas, compiled; nil when the form has none.
    let formulas: FormulaPlan?
    /// How many days the form's submissions are kept (`retentionDays`); nil keeps them as long as the
    /// server's default says. A server deletes older ones, with everything they hold.
    public let retentionDays: Int?
    /// The longest `retentionDays` may be: a hundred years.
    public static let maximumRetentionDays = 36_500
    /// Whether a regex of the form may cost more than a table lookup per input scalar: its
    /// automaton was left unfinished and its program is large. Validation with such a form can take
    /// seconds for a large body, so a server runs it off the threads that serve other requests.
    public let hasSlowPatterns: Bool
    private let normalized: JSONValue
    /// Whether the repeats would add more components to the Formworks profile than an upload may
    /// (possible only for a definition read back with `.stored`); such a form serves no profile.
    public let formworksProfileTooLarge: Bool
    /// Why this form serves no Formworks profile, or nil when it serves one: its repeats expand too
    /// far (``FormworksProfileRefusal/tooLarge``, as ``formworksProfileTooLarge`` says), or a client
    /// could never submit it (``FormworksProfileRefusal/requiredFileInput(path:)``).
    public let formworksProfileRefusal: FormworksProfileRefusal?

    /// How strictly a definition is read.
    public enum Reading: Sendable {
        /// Every check: a definition being uploaded, or written by hand.
        case upload
        /// A definition a server has accepted already, such as the body of `GET /v1/forms/{id}`:
        /// checks added to the engine since it was accepted (the repeat expansion limit among them)
        /// are left out, so a newer engine still reads every form an older one accepted.
        case stored
    }

    /// How many JSON levels the values of `nodes` take inside `values`: a group's object one, a
    /// repeat's array one more, a multiple select's or a file input's array one.
    static func valuesDepth(_ nodes: [FormNode]) -> Int {
        nodes.reduce(0) { deepest, node in
            switch node.kind {
            case .input(let spec): max(deepest, spec.multiple || spec.file != nil ? 1 : 0)
            case .group(let group): max(deepest, 1 + (group.repeatBounds == nil ? 0 : 1) + valuesDepth(group.children))
            case .section(let children): max(deepest, valuesDepth(children))
            }
        }
    }

    /// Decodes and normalizes a definition from its UTF-8 JSON; throws every problem at once.
    ///
    /// Bytes that are not JSON throw a single ``DefinitionProblem/Code/malformedJSON`` problem.
    public init(json bytes: [UInt8], reading: Reading = .upload) throws(DefinitionErrors) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: bytes)
        } catch {
            throw DefinitionErrors(notJSON: error)
        }
        try self.init(json: value, reading: reading)
    }

    /// Decodes and normalizes a parsed definition; throws every problem at once.
    public init(json value: JSONValue, reading: Reading = .upload) throws(DefinitionErrors) {
        var decoder = DefinitionDecoder()
        decoder.newChecks = reading == .upload
        guard let top = value.objectValue else {
            throw DefinitionErrors(problems: [DefinitionProblem(pointer: "", code: .invalidType,
                                                                message: "A form definition is a JSON object with \"title\" and \"components\".")])
        }
        var id: String?
        if let v = top["id"] {
            if let s = v.stringValue, !s.isEmpty { id = s } else {
                decoder.problem("/id", .invalidType, "\"id\" must be a non-empty string.")
            }
        }
        decoder.decodeDefaultLanguage(top["defaultLanguage"])
        var title = ""
        if let v = top["title"] {
            title = decoder.text(v, named: "title", at: "/title")?.text(in: decoder.defaultLanguage, default: decoder.defaultLanguage) ?? ""
        } else {
            decoder.problem("/title", .missing, "\"title\" is required: the form's title shown at the top.")
        }
        decoder.checkTexts(top, ["description"], at: "", reporting: reading == .upload)
        if let v = top["responseFormat"], v != "long", v != "short" {
            decoder.problem("/responseFormat", .badValue, "\"responseFormat\" is \"long\" or \"short\".")
        }
        var retentionDays: Int?
        if let v = top["retentionDays"] {
            if let n = v.numberValue, n == n.rounded(), (1...Double(Self.maximumRetentionDays)).contains(n) {
                retentionDays = Int(n)
            } else {
                decoder.problem("/retentionDays", .badValue,
                                "\"retentionDays\" is a whole number of days from 1 to \(Self.maximumRetentionDays): how long submissions are kept.")
            }
        }
        if let v = top["style"] {
            if let style = v.objectValue {
                for (key, color) in style.members.map({ ($0.key, $0.value) }) where !Color.isValid(color.stringValue) {
                    decoder.problem("/style/" + DefinitionDecoder.escape(key), .badColor,
                                    "\"\(key)\" must be a color written #RRGGBB or #RRGGBBAA (hex digits).")
                }
            } else {
                decoder.problem("/style", .invalidType, "\"style\" must be an object of colors.")
            }
        }
        var nodes = decoder.decodeComponents(top["components"], at: "/components")
        let knownIDs = decoder.assignIDs(&nodes)
        decoder.resolveConditions(&nodes, scopes: [nodes], ancestors: [])
        let formulas = FormulaCompiler.compile(&nodes, decoder: &decoder)
        let expansion = decoder.checkExpansion(nodes, reporting: reading == .upload)
        // A form no client could submit to is refused at upload: its values would nest deeper than a
        // submission may (the top object and `values` are two levels; a group one, a repeat two).
        let depth = 2 + Self.valuesDepth(nodes)
        if reading == .upload, depth > SubmissionLimits().maxDepth {
            decoder.problem("/components", .tooLarge,
                            "Groups nest so deep that a submission would be \(depth) JSON levels deep, more than the "
                                + "\(SubmissionLimits().maxDepth) a submission may be; nest fewer groups (a repeating group counts twice).")
        }
        guard decoder.problems.isEmpty else { throw DefinitionErrors(problems: decoder.problems) }

        self.id = id
        self.title = title
        defaultLanguage = decoder.defaultLanguage
        isTranslated = !decoder.languages.isEmpty
        languages = [decoder.defaultLanguage] + decoder.languages.filter { !LanguageTag.same($0, decoder.defaultLanguage) }
        self.retentionDays = retentionDays
        self.formworksProfileTooLarge = expansion.added > DefinitionDecoder.maximumAddedComponents
            || expansion.bytes > DefinitionDecoder.maximumProfileBytes
        var fileInputs: [String: FileInputRules] = [:]
        if decoder.hasFileInputs { Self.placeFileInputs(&nodes, prefix: "", into: &fileInputs) }
        self.fileInputs = fileInputs
        self.formulas = formulas
        hasSlowPatterns = decoder.hasSlowPatterns
        if formworksProfileTooLarge {
            formworksProfileRefusal = .tooLarge
        } else if decoder.hasFileInputs, let path = Self.requiredFileInput(nodes, prefix: "", conditional: false) {
            formworksProfileRefusal = .requiredFileInput(path: path)
        } else {
            formworksProfileRefusal = nil
        }
        self.nodes = nodes
        let referenced = Step.referencedSlots(nodes)
        self.steps = Step.compile(nodes, referenced: referenced)
        self.slotCount = referenced.isEmpty ? 0 : decoder.componentCount
        self.knownIDs = knownIDs
        self.top = top
        var paths: [String] = []
        var sensitivePaths: [String] = []
        Self.collectPaths(nodes, prefix: "", into: &paths, sensitive: &sensitivePaths)
        self.inputPaths = paths
        self.sensitiveInputPaths = sensitivePaths
        self.sensitiveTree = sensitivePaths.isEmpty ? [] : Self.sensitiveTree(nodes)
        var normalizedTop = top
        normalizedTop["components"] = .array(nodes.map(Self.normalized))
        self.normalized = .object(normalizedTop)
    }

    /// The definition as a server stores and serves it: the upload with every generated id filled in.
    public func normalizedJSON() -> JSONValue {
        normalized
    }

    private static func normalized(_ node: FormNode) -> JSONValue {
        var props = node.source
        switch node.kind {
        case .input(let spec):
            if node.generatedID { props.prepend("id", .string(spec.id)) }
            // The limits are written out, defaults too, so that clients can check a file before uploading it.
            if let file = spec.file {
                props["maxSize"] = .number(Double(file.maxSize))
                props["maxFiles"] = .number(Double(file.maxFiles))
            }
        case .group(let group):
            if node.generatedID { props.prepend("id", .string(group.id)) }
            props["components"] = .array(group.children.map(normalized))
        case .section(let children):
            props["components"] = .array(children.map(normalized))
        }
        var wrapper = JSONObject()
        wrapper.append(node.typeKey, .object(props))
        return .object(wrapper)
    }

    private static func collectPaths(_ nodes: [FormNode], prefix: String, into paths: inout [String], sensitive: inout [String]) {
        for node in nodes {
            switch node.kind {
            case .input(let spec):
                paths.append(prefix + spec.id)
                if spec.sensitive { sensitive.append(prefix + spec.id) }
            case .section(let children): collectPaths(children, prefix: prefix, into: &paths, sensitive: &sensitive)
            case .group(let group):
                collectPaths(group.children, prefix: prefix + group.id + (group.repeatBounds == nil ? "." : "[]."), into: &paths,
                             sensitive: &sensitive)
            }
        }
    }
}

/// Style colors: `#RRGGBB` or `#RRGGBBAA`.
enum Color {
    static func isValid(_ s: String?) -> Bool {
        guard let s else { return false }
        let b = Array(s.utf8)
        guard b.count == 7 || b.count == 9, b[0] == UInt8(ascii: "#") else { return false }
        return b.dropFirst().allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x46) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
