/// hyperoslo/Form's targets as conditions on what they control.
///
/// A target is an action run when a value changes: `hide`, `show`, `enable`, `disable`, `update` or
/// `clear` a field or section. Formhouse states instead when an input is shown (`visibleWhen`) or
/// editable (`enabledWhen`), so a set of targets is carried over when it says one such state:
/// - the targets of one dropdown's values: the target starts shown (enabled) and is hidden
///   (disabled) while a value that hides (disables) it is chosen, or starts `hidden` (`disabled`)
///   and is shown (enabled) while a value that shows (enables) it is chosen;
/// - one target with a `condition` on a field: `show`/`enable` while it holds, `hide`/`disable`
///   while it does not.
/// `update` and `clear` are events, not states: each becomes an entry of the target's `updates`,
/// which a renderer applies when the person's change makes its condition hold (the dropdown value
/// chosen, or the condition on the changed field). An `update` with no `target_value` of a field
/// with a formula is what Formhouse does anyway (it computes formulas on every change).
extension HyperosloConverter {
    /// One hide/show/enable/disable, with the field whose value decides it.
    private struct Effect {
        var target: String
        var visibility: Bool
        var turnsOn: Bool
        var deciding: HyperosloField
        var option: String?
        var condition: JSONValue?
        var pointer: String
    }

    mutating func resolveTargets() {
        var effects: [Effect] = []
        for field in fields.values.sorted(by: { $0.order < $1.order }) {
            if let list = field.object["targets"] {
                collect(list, of: field, option: nil, at: Self.pointer(field.pointer, "targets"), into: &effects)
            }
            for (i, value) in (field.object["values"]?.arrayValue ?? []).enumerated() {
                guard let list = value["targets"], let option = Self.optionID(value["id"]) else { continue }
                collect(list, of: field, option: option, at: "\(field.pointer)/values/\(i)/targets", into: &effects)
            }
        }
        var keys: [String] = []
        var byTarget: [String: [Effect]] = [:]
        for effect in effects {
            let key = (effect.visibility ? "v " : "e ") + effect.target
            if byTarget[key] == nil { keys.append(key) }
            byTarget[key, default: []].append(effect)
        }
        for key in keys {
            guard let list = byTarget[key], let first = list.first, let condition = condition(for: list) else { continue }
            guard check(target: first.target, deciding: first.deciding, at: first.pointer) else { continue }
            if first.visibility { visibility[first.target] = condition } else { enabling[first.target] = condition }
        }
    }

    private mutating func collect(_ list: JSONValue, of field: HyperosloField, option: String?, at pointer: String, into effects: inout [Effect]) {
        guard let items = list.arrayValue else {
            problem(pointer, .invalidType, "\"targets\" must be an array.")
            return
        }
        for (j, item) in items.enumerated() {
            let at = "\(pointer)/\(j)"
            guard let target = item.objectValue, let id = target["id"]?.stringValue, let action = target["action"]?.stringValue else {
                problem(at, .missing, "A target needs a string \"id\" and an \"action\".")
                continue
            }
            refuseUnknownKeys(target, known: ["id", "type", "action", "condition", "target_value"], at: at, of: "a target")
            let isSection = target["type"]?.stringValue == "section"
            guard isSection || target["type"] == nil || target["type"]?.stringValue == "field" else {
                problem(at + "/type", .badValue, "A target's \"type\" is \"field\" or \"section\".")
                continue
            }
            guard isSection ? sections[id] != nil : fields[id] != nil else {
                problem(at + "/id", .unknownField, "The target names \"\(id)\", which is no \(isSection ? "section" : "field") of the form.")
                continue
            }
            switch action {
            case "update", "clear":
                collectUpdate(target, action: action, of: field, option: option, at: at, isSection: isSection)
            case "hide", "show", "enable", "disable":
                let visibility = action == "hide" || action == "show"
                if !visibility, isSection {
                    problem(at, "Enabling or disabling a section is not carried over: give its fields the targets instead.")
                    continue
                }
                if !visibility, fields[id]?.hasFormula == true {
                    problem(at, "Enabling or disabling \"\(id)\" is not carried over: its formula makes it read-only in Formhouse.")
                    continue
                }
                var effect = Effect(target: id, visibility: visibility, turnsOn: action == "show" || action == "enable",
                                    deciding: field, option: option, pointer: at)
                if let text = target["condition"] {
                    guard option == nil else {
                        problem(at + "/condition", "A condition on a dropdown value's target is not carried over: put the target on a field, with the whole condition.")
                        continue
                    }
                    guard let (deciding, condition) = parseCondition(text, of: field, at: at + "/condition") else { continue }
                    (effect.deciding, effect.condition) = (deciding, condition)
                } else if option == nil {
                    problem(at, "A \"\(action)\" target on a field without a condition runs on every change of it, which leaves no state to carry over: give it a \"condition\", or put it on a dropdown value.")
                    continue
                }
                effects.append(effect)
            default:
                problem(at + "/action", .badValue, "A target's \"action\" is hide, show, enable, disable, update or clear, not \"\(action)\".")
            }
        }
    }

    /// An `update` or `clear` as an entry of its field's `updates`: `{"when", "value"}`, `value` null
    /// for a clear.
    private mutating func collectUpdate(_ target: JSONObject, action: String, of field: HyperosloField, option: String?, at: String, isSection: Bool) {
        guard let id = target["id"]?.stringValue, !isSection, let targetField = fields[id] else {
            problem(at, "An \"\(action)\" target on a section does nothing in hyperoslo/Form, which updates fields only: remove it.")
            return
        }
        // hyperoslo/Form sets `target_value` when there is one, whatever the action says.
        let given = target["target_value"].flatMap { $0 == .null ? nil : $0 }
        if given == nil, action == "update" {
            guard !targetField.hasFormula else {
                // Formhouse recomputes the formula on every change, whatever the condition says; a
                // condition it could not read is still named.
                if let text = target["condition"] { _ = parseCondition(text, of: field, at: at + "/condition") }
                return
            }
            problem(at, "An \"update\" target without \"target_value\" recomputes its field's formula, and \"\(id)\" has none: it does nothing in hyperoslo/Form. Remove it, or give it a \"target_value\".")
            return
        }
        guard !targetField.hasFormula else {
            problem(at, "\"\(id)\" is computed by its formula in Formhouse, so a target cannot set it: remove the target, or the formula.")
            return
        }
        var value = given ?? .null
        if let given, targetField.type == "select" || targetField.type == "segment" {
            guard let option = Self.optionID(given) else {
                problem(at + "/target_value", .invalidType, "The \"target_value\" of a dropdown is the id of one of its values.")
                return
            }
            value = .string(option)
        }
        var deciding = field
        let when: JSONValue
        if let text = target["condition"] {
            guard option == nil else {
                problem(at + "/condition", "A condition on a dropdown value's target is not carried over: put the target on a field, with the whole condition.")
                return
            }
            guard let (named, condition) = parseCondition(text, of: field, at: at + "/condition") else { return }
            guard named.id == field.id else {
                problem(at + "/condition", "The condition reads \"\(named.id)\", but the target runs when \"\(field.id)\" changes: Formhouse runs an update when a field its condition reads changes. Put the target on \"\(named.id)\".")
                return
            }
            (deciding, when) = (named, condition)
        } else if let option {
            when = ["field": .string(field.name), "equals": .string(option)]
        } else {
            problem(at, "An \"\(action)\" target on a field without a condition runs on every change of it, which Formhouse cannot tell apart from no change: give it a \"condition\", or put it on a dropdown value.")
            return
        }
        guard check(target: id, deciding: deciding, at: at) else { return }
        updates[id, default: []].append((["when": when, "value": value], at))
    }

    /// The condition the effects on one target together say, or nil with the reason recorded.
    private mutating func condition(for effects: [Effect]) -> JSONValue? {
        guard let first = effects.first else { return nil }
        let (on, off) = first.visibility ? ("shown", "hidden") : ("enabled", "disabled")
        if let other = effects.dropFirst().first(where: { $0.deciding.id != first.deciding.id || $0.option == nil || first.option == nil }) {
            problem(other.pointer, "\"\(first.target)\" is already \(on) or \(off) by a target of \"\(first.deciding.id)\": hyperoslo/Form applies whichever target ran last, which one condition cannot say. Keep the targets of one dropdown, or one target with a condition.")
            return nil
        }
        let name = first.deciding.name
        if let condition = first.condition {
            return first.turnsOn ? condition : Self.negated(condition)
        }
        var onOptions: [String] = []
        var offOptions: [String] = []
        for effect in effects {
            guard let option = effect.option else { continue }
            if effect.turnsOn, !onOptions.contains(option) { onOptions.append(option) }
            if !effect.turnsOn, !offOptions.contains(option) { offOptions.append(option) }
        }
        if let both = onOptions.first(where: offOptions.contains) {
            problem(first.pointer, "The value \"\(both)\" of \"\(first.deciding.id)\" both \(first.visibility ? "shows and hides" : "enables and disables") \"\(first.target)\".")
            return nil
        }
        let startsOff = fields[first.target]?.object[first.visibility ? "hidden" : "disabled"] == .bool(true)
        if startsOff {
            guard !onOptions.isEmpty else { return nil }
            return onOptions.count == 1 ? ["field": .string(name), "equals": .string(onOptions[0])]
                : ["field": .string(name), "in": .array(onOptions.map(JSONValue.string))]
        }
        guard !offOptions.isEmpty else { return nil }
        let each: [JSONValue] = offOptions.map { ["field": .string(name), "notEquals": .string($0)] }
        return each.count == 1 ? each[0] : ["all": .array(each)]
    }

    /// Whether `deciding` can decide `target` in Formhouse: it comes earlier, and is not inside a
    /// dynamic section the target is outside of.
    private mutating func check(target: String, deciding: HyperosloField, at pointer: String) -> Bool {
        let found = fields[target].map { ($0.order, $0.scope) } ?? sections[target].map { ($0.order, nil as String?) }
        guard let (order, scope) = found else { return false }
        guard deciding.order < order else {
            problem(pointer, .forwardReference, "\"\(target)\" comes before \"\(deciding.id)\", whose value decides it: Formhouse conditions read earlier answers only. Move \"\(target)\" after \"\(deciding.id)\".")
            return false
        }
        guard deciding.scope == nil || deciding.scope == scope else {
            problem(pointer, .conditionInRepeat, "\"\(deciding.id)\" is in each item of the dynamic section \"\(deciding.scope ?? "")\", so it cannot decide \"\(target)\" outside it.")
            return false
        }
        return true
    }

    /// `$field == value`, `$field != value` or `equals($field, value)` (value a JSON number, string
    /// or boolean) as an engine condition, with the field it reads.
    private mutating func parseCondition(_ value: JSONValue, of field: HyperosloField, at pointer: String) -> (HyperosloField, JSONValue)? {
        let refused = "is not carried over: Formhouse reads `$field == value`, `$field != value` and `equals($field, value)`, value a number, a quoted text, true or false."
        guard let text = value.stringValue else {
            problem(pointer, .invalidType, "A target's \"condition\" must be a string.")
            return nil
        }
        let trimmed = String(Self.trimmed(Substring(text)))
        var parts: (field: Substring, value: Substring, key: String)?
        if trimmed.hasPrefix("equals("), trimmed.hasSuffix(")"), let comma = trimmed.firstIndex(of: ",") {
            let start = trimmed.index(trimmed.startIndex, offsetBy: "equals(".count)
            parts = (trimmed[start..<comma], trimmed[trimmed.index(after: comma)..<trimmed.index(before: trimmed.endIndex)], "equals")
        } else if let range = trimmed.range(of: "==") ?? trimmed.range(of: "!=") {
            parts = (trimmed[..<range.lowerBound], trimmed[range.upperBound...], trimmed[range] == "==" ? "equals" : "notEquals")
        }
        guard let parts else {
            problem(pointer, "The condition \"\(text)\" \(refused)")
            return nil
        }
        let id = Self.trimmed(parts.field)
        let literal = Self.trimmed(parts.value)
        guard id.hasPrefix("$"), let deciding = fields[String(id.dropFirst())] else {
            problem(pointer, .unknownField, "The condition \"\(text)\" names no field of the form: write it `$field == value`.")
            return nil
        }
        guard let operand = try? JSONValue(parsing: Array(literal.utf8)), operand.stringValue != nil || operand.numberValue != nil || operand.boolValue != nil else {
            problem(pointer, "The condition \"\(text)\" \(refused)")
            return nil
        }
        return (deciding, ["field": .string(deciding.name), parts.key: operand])
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return text
    }

    private static func negated(_ condition: JSONValue) -> JSONValue {
        guard let object = condition.objectValue, let field = object["field"] else { return condition }
        if let value = object["equals"] { return ["field": field, "notEquals": value] }
        if let value = object["notEquals"] { return ["field": field, "equals": value] }
        return condition
    }
}
