/// What a renderer puts into an input: its `default` when the form is first shown, and its
/// `updates` when a person's change makes a condition hold, as hyperoslo/Form's field values and its
/// `update` and `clear` targets do.
///
/// They are a renderer's behaviour, not rules: the person may change the value afterwards, so the
/// submitted values already show their effect and the engine does not apply them when it validates.
/// What the engine guarantees is that each could be applied: an update's condition compiles as a
/// `visibleWhen` does, and every value passes the input's own rules.
extension DefinitionDecoder {
    /// The most entries one input's `updates` may hold.
    static let maximumUpdates = 64

    /// Checks `updates` and returns the conditions that compiled, by entry.
    mutating func decodeUpdates(_ raw: JSONValue, of node: FormNode, scopes: [[FormNode]], ancestors: [Int]) -> [(entry: Int, condition: Condition)] {
        let pointer = node.pointer + "/updates"
        // On a section or a group it is refused with the other input-only properties.
        guard case .input(let spec) = node.kind else { return [] }
        guard spec.type != .file else {
            problem(pointer, .notApplicable, "\"updates\" does not apply to a \"file\" input: its value is an upload the person makes.")
            return []
        }
        guard node.source["formula"] == nil else {
            problem(pointer, .notApplicable, "\"updates\" does not apply to a computed input: its value is its formula's.")
            return []
        }
        guard let items = raw.arrayValue, !items.isEmpty else {
            problem(pointer, .invalidType, "\"updates\" must be a non-empty array of {\"when\": <condition>, \"value\": <value or null>}.")
            return []
        }
        guard items.count <= Self.maximumUpdates else {
            problem(pointer, .tooLarge, "\"updates\" holds \(items.count) entries; at most \(Self.maximumUpdates) are allowed.")
            return []
        }
        var conditions: [(entry: Int, condition: Condition)] = []
        for (i, item) in items.enumerated() {
            let at = "\(pointer)/\(i)"
            guard let entry = item.objectValue, let when = entry["when"], let value = entry["value"] else {
                problem(at, .missing, "An update is {\"when\": <condition>, \"value\": <value or null>}.")
                continue
            }
            if let extra = entry.keys.first(where: { $0 != "when" && $0 != "value" }) {
                problem(at + "/" + Self.escape(extra), .badValue, "An update has only \"when\" and \"value\", not \"\(extra)\".")
            }
            if let condition = compileCondition(when, at: at + "/when", owner: node.order, scopes: scopes, ancestors: ancestors) {
                conditions.append((i, condition))
            }
            if value != .null, let reason = Self.refusal(of: value, by: spec) {
                problem(at + "/value", .badValue, "The value \(Self.quoted(value)) could not be submitted for \"\(spec.id)\": \(reason)")
            }
        }
        return conditions
    }

    /// An input's `default`: the value it starts with. A select's is its options' `default: true`.
    mutating func decodeDefault(_ value: JSONValue, of node: FormNode) {
        let pointer = node.pointer + "/default"
        // On a section or a group it is refused with the other input-only properties.
        guard case .input(let spec) = node.kind else { return }
        if spec.type == .select {
            problem(pointer, .notApplicable, "A select starts on the options marked \"default\": true, not on an input \"default\".")
        } else if spec.type == .file {
            problem(pointer, .notApplicable, "\"default\" does not apply to a \"file\" input: its value is an upload the person makes.")
        } else if node.source["formula"] != nil {
            problem(pointer, .notApplicable, "\"default\" does not apply to a computed input: its value is its formula's.")
        } else if value != .null, let reason = Self.refusal(of: value, by: spec) {
            problem(pointer, .badValue, "The default \(Self.quoted(value)) could not be submitted for \"\(spec.id)\": \(reason)")
        }
    }

    /// Why the input's own rules would refuse `value`, or nil when they accept it.
    private static func refusal(of value: JSONValue, by spec: InputSpec) -> String? {
        var run = ValidationRun(options: ValidationOptions(), formID: nil, capacity: 1, slotCount: 0, computedCount: 0)
        // Judged as a value a person could send: a value always may be emptied again, so `required`
        // is not the value's to meet (a required switch may start off).
        var plain = spec
        plain.messages = [:]
        plain.required = false
        _ = run.check(InputRule(plain, nil, slot: nil), value)
        let texts = TextLanguages(preferences: LanguagePriorityList(), formLanguage: "en", defaultLanguage: "en")
        return run.failures.first.map { texts.write($0.message) }
    }

    private static func quoted(_ value: JSONValue) -> String {
        let text = String(decoding: value.serialized(), as: UTF8.self)
        return text.count <= 60 ? text : String(text.prefix(57)) + "..."
    }
}
