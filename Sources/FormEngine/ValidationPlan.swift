import FormRegex

/// The definition compiled for validation: immutable reference types, so walking it per submission
/// costs one retain per step instead of copying every property.
enum Step: Sendable {
    case input(InputRule)
    case group(GroupRule)
    case section(SectionRule)

    static func compile(_ nodes: [FormNode]) -> [Step] {
        nodes.map { node in
            switch node.kind {
            case .input(let spec): .input(InputRule(spec, node.visibleWhen))
            case .group(let group): .group(GroupRule(group, node.visibleWhen))
            case .section(let children): .section(SectionRule(children: compile(children), condition: node.visibleWhen))
            }
        }
    }
}

final class InputRule: Sendable {
    let type: InputType
    let id: String
    let required: Bool
    let pattern: Pattern?
    let minLength: Int?
    let maxLength: Int?
    let minValue: Double?
    let maxValue: Double?
    let maxDecimalPlaces: Int?
    let minDate: String?
    let maxDate: String?
    let options: [String]
    let multiple: Bool
    let messages: [String: String]
    let condition: Condition?

    init(_ spec: InputSpec, _ condition: Condition?) {
        type = spec.type
        id = spec.id
        required = spec.required
        pattern = spec.pattern
        minLength = spec.minLength
        maxLength = spec.maxLength
        minValue = spec.minValue
        maxValue = spec.maxValue
        maxDecimalPlaces = spec.maxDecimalPlaces
        minDate = spec.minDate
        maxDate = spec.maxDate
        options = spec.options
        multiple = spec.multiple
        messages = spec.messages
        self.condition = condition
    }
}

final class GroupRule: Sendable {
    let id: String
    let bounds: RepeatBounds?
    let children: [Step]
    let knownIDs: Set<String>
    let condition: Condition?

    init(_ group: GroupSpec, _ condition: Condition?) {
        id = group.id
        bounds = group.repeatBounds
        children = Step.compile(group.children)
        knownIDs = group.knownIDs
        self.condition = condition
    }
}

final class SectionRule: Sendable {
    let children: [Step]
    let condition: Condition?

    init(children: [Step], condition: Condition?) {
        self.children = children
        self.condition = condition
    }
}
