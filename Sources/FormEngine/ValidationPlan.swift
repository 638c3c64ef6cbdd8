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
                .input(InputRule(spec, node.visibleWhen, slot: referenced.contains(node.order) ? node.order : nil,
                                 enabledWhen: node.enabledWhen))
            case .group(let group):
                .group(GroupRule(group, node.visibleWhen, slots: node.order + 1..<lastOrder(node) + 1, referenced: referenced))
            case .section(let children):
                .section(SectionRule(children: compile(children, referenced: referenced), condition: node.visibleWhen))
            }
        }
    }

    /// The ids of the computed inputs among `steps`, looking through sections.
    static func computedIDs(_ steps: [Step]) -> Set<String> {
        var ids = Set<String>()
        for step in steps {
            switch step {
            case .input(let rule) where rule.spec.formulaIndex != nil: ids.insert(rule.spec.id)
            case .section(let section): ids.formUnion(computedIDs(section.children))
            default: break
            }
        }
        return ids
    }

    /// Every slot read by a condition anywhere in `nodes`.
    static func referencedSlots(_ nodes: [FormNode]) -> Set<Int> {
        var slots = Set<Int>()
        for node in nodes {
            if let condition = node.visibleWhen { slots.formUnion(condition.slots) }
            if let condition = node.enabledWhen { slots.formUnion(condition.slots) }
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

/// An input's rules with where it sits in the validation: its condition and its slot.
final class InputRule: Sendable {
    let spec: InputSpec
    let condition: Condition?
    /// Where this input's accepted value goes for conditions to read; nil when no condition does.
    let slot: Int?
    /// `enabledWhen`: while it does not hold, a value sent for the input is ignored.
    let enabledWhen: Condition?

    init(_ spec: InputSpec, _ condition: Condition?, slot: Int?, enabledWhen: Condition? = nil) {
        self.spec = spec
        self.condition = condition
        self.slot = slot
        self.enabledWhen = enabledWhen
    }
}

/// A group's properties with its compiled children, its condition and its descendants' slots.
final class GroupRule: Sendable {
    let spec: GroupSpec
    let children: [Step]
    let condition: Condition?
    /// The slots of its descendants, cleared before each repeat item.
    let slots: Range<Int>
    /// The ids of its computed inputs (sections are transparent): a value sent for one is ignored,
    /// so it does not make a repeat item count.
    let computedIDs: Set<String>

    init(_ spec: GroupSpec, _ condition: Condition?, slots: Range<Int>, referenced: Set<Int>) {
        self.spec = spec
        children = Step.compile(spec.children, referenced: referenced)
        self.condition = condition
        self.slots = slots
        computedIDs = Step.computedIDs(children)
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
