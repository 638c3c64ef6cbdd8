import FormRegex

/// One input of a definition, with its rules compiled.
struct InputSpec: Sendable {
    var type: InputType
    var id: String
    var title: String
    var required: Bool
    var pattern: Pattern?
    var minLength: Int?
    var maxLength: Int?
    var minValue: Double?
    var maxValue: Double?
    /// A `numerical` input's `minValue`/`maxValue` as exact decimals, read once at decoding: its
    /// digits are compared with them exactly, however many there are.
    var digitBounds: (min: DecimalText?, max: DecimalText?) = (nil, nil)
    var maxDecimalPlaces: Int?
    var minDate: String?
    var maxDate: String?
    var options: [String] = []
    var multiple = false
    /// Whether the value is kept from anyone but the form's owners (`sensitive`; always for `password`).
    var sensitive = false
    /// A `file` input's rules; nil for every other type.
    var file: FileInputRules?
    var messages: [FieldError.Code: LocalizedText] = [:]
    /// A computed input's place in ``FormulaPlan/sites``; nil for an input a person answers.
    var formulaIndex: Int?
}

/// A repeating group's bounds on its number of items.
struct RepeatBounds: Sendable {
    var min: Int
    var max: Int
}

/// A `group`: its inputs' values nest under its id.
struct GroupSpec: Sendable {
    var id: String
    var title: String
    var repeatBounds: RepeatBounds?
    var children: [FormNode]
    /// Every id its children put at this level (sections are transparent).
    var knownIDs: Set<String> = []
}

/// A node of the definition tree, in form order.
struct FormNode: Sendable {
    enum Kind: Sendable {
        case input(InputSpec)
        case group(GroupSpec)
        case section(children: [FormNode])
    }

    var kind: Kind
    var visibleWhen: Condition?
    /// An input's `enabledWhen`: while false, it is shown read-only and a value sent for it is ignored.
    var enabledWhen: Condition?
    /// The conditions of an input's `updates`, kept only to check what they read: a renderer applies
    /// updates, the engine does not.
    var updateConditions: [(entry: Int, condition: Condition)] = []
    /// The component's properties as uploaded: the inner object of `{"<type>": {...}}`.
    var source: JSONObject
    /// Whether the id was generated (it is put first in the normalized JSON).
    var generatedID = false
    /// JSON Pointer to the component's properties in the upload.
    var pointer = ""
    /// Position in form order (pre-order), used to reject forward references in conditions.
    var order = 0

    /// The component's type, the key of `{"<type>": {...}}`.
    var typeKey: String {
        switch kind {
        case .input(let spec): spec.type.rawValue
        case .group: "group"
        case .section: "section"
        }
    }
}
