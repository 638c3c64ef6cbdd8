import FormRegex

/// The definition compiled for validation: immutable reference types, so walking it per submission
/// costs one retain per step instead of copying every property.
enum Step: Sendable {
    case input(InputRule)
    case group(GroupRule)
    case section(SectionRule)

    /// Compiles the tree; `referenced` holds the slots (form-order positions) that conditions read.
    static func compile(_ nodes: [FormNode], referenced: Set<Int>) -> [Step] {
        nodes.map { node in
            switch node.kind {
            case .input(let spec):
                .input(InputRule(spec, node.visibleWhen, slot: referenced.contains(node.order) ? node.order : nil))
            case .group(let group):
                .group(GroupRule(group, node.visibleWhen, slots: node.order + 1..<lastOrder(node) + 1, referenced: referenced))
            case .section(let children):
                .section(SectionRule(children: compile(children, referenced: referenced), condition: node.visibleWhen))
            }
        }
    }

    /// Every slot read by a condition anywhere in `nodes`.
    static func referencedSlots(_ nodes: [FormNode]) -> Set<Int> {
        var slots = Set<Int>()
        for node in nodes {
            if let condition = node.visibleWhen { slots.formUnion(condition.slots) }
            switch node.kind {
            case .input: break
            case .group(let group): slots.formUnion(referencedSlots(group.children))
            case .section(let children): slots.formUnion(referencedSlots(children))
            }
        }
        return slots
    }

    private static func lastOrder(_ node: FormNode) -> Int {
        switch node.kind {
        case .input: node.order
        case .group(let group): group.children.last.map(lastOrder) ?? node.order
        case .section(let children): children.last.map(lastOrder) ?? node.order
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
    /// Where this input's accepted value goes for conditions to read; nil when no condition does.
    let slot: Int?

    init(_ spec: InputSpec, _ condition: Condition?, slot: Int?) {
        self.slot = slot
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
    /// The slots of its descendants, cleared before each repeat item.
    let slots: Range<Int>

    init(_ group: GroupSpec, _ condition: Condition?, slots: Range<Int>, referenced: Set<Int>) {
        id = group.id
        bounds = group.repeatBounds
        self.slots = slots
        children = Step.compile(group.children, referenced: referenced)
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
