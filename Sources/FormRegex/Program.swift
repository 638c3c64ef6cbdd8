/// A Thompson NFA: the compiled form of `Syntax`, with counted repetitions expanded.
///
/// Instructions live in parallel arrays indexed by instruction number. Every instruction except
/// `.match` names its successor(s), so the program is a graph rather than a sequence.
struct Program: Sendable {
    static let maximumInstructions = 10_000

    enum Kind: UInt8, Sendable {
        /// Consume one scalar in `classes[operand]`, then go to `next`.
        case scalar
        /// Go to both `next` and `operand` without consuming.
        case split
        /// Go to `next` if `Assertion(rawValue: operand)` holds at the current position.
        case assertion
        case match
    }

    private(set) var kinds: [Kind] = []
    private(set) var nexts: [Int32] = []
    private(set) var operands: [Int32] = []
    private(set) var classes: [ScalarClass] = []
    private(set) var start: Int32 = 0
    private(set) var usesWordBoundaries = false
    /// Whether `$` or `\Z` occurs, so that a final line terminator needs an NFA step.
    private(set) var usesFinalTerminator = false

    private var classIndex: [ScalarClass: Int32] = [:]
    /// Offset of the outermost repetition being expanded, to blame when the program grows too big.
    private var expandingOffset: Int?

    init(_ syntax: Syntax) throws(PatternError) {
        let match = try emit(.match, next: -1, operand: 0)
        start = try compile(syntax, then: match)
    }

    var count: Int { kinds.count }

    /// Compiles `syntax` so that it continues at `next`, returning its entry instruction.
    private mutating func compile(_ syntax: Syntax, then next: Int32) throws(PatternError) -> Int32 {
        switch syntax {
        case .empty:
            return next
        case .set(let set):
            return try emit(.scalar, next: next, operand: classNumber(set))
        case .concatenation(let items):
            var entry = next
            for item in items.reversed() {
                entry = try compile(item, then: entry)
            }
            return entry
        case .alternation(let branches):
            var entry = try compile(branches[branches.count - 1], then: next)
            for branch in branches.dropLast().reversed() {
                let branchEntry = try compile(branch, then: next)
                entry = try emit(.split, next: branchEntry, operand: entry)
            }
            return entry
        case .assertion(let assertion):
            if assertion == .wordBoundary || assertion == .notWordBoundary {
                usesWordBoundaries = true
            }
            if assertion == .endBeforeFinalTerminator {
                usesFinalTerminator = true
            }
            return try emit(.assertion, next: next, operand: Int32(assertion.rawValue))
        case .repetition(let body, let min, let max, let offset):
            // A body that emits no instruction (an empty group) matches only the empty string, so
            // repeating it changes nothing; the loops below would otherwise run, nested, without ever
            // meeting the instruction limit ((?:(?:(?:){1000}){1000}){1000} would take seconds per level).
            if Self.emitsNothing(body) { return next }
            let outermost = expandingOffset == nil
            if outermost { expandingOffset = offset }
            defer { if outermost { expandingOffset = nil } }
            var entry: Int32
            if let max {
                // x{0,k} as nested optionals: (x(x(...)?)?)?
                entry = next
                for _ in 0..<(max - min) {
                    let bodyEntry = try compile(body, then: entry)
                    entry = try emit(.split, next: bodyEntry, operand: next)
                }
            } else {
                let loop = try emit(.split, next: -1, operand: next)
                let bodyEntry = try compile(body, then: loop)
                nexts[Int(loop)] = bodyEntry
                entry = loop
            }
            for _ in 0..<min {
                entry = try compile(body, then: entry)
            }
            return entry
        }
    }

    /// Whether `syntax` compiles to no instruction at all.
    private static func emitsNothing(_ syntax: Syntax) -> Bool {
        switch syntax {
        case .empty: true
        case .concatenation(let items): items.allSatisfy(emitsNothing)
        case .repetition(let body, _, _, _): emitsNothing(body)
        case .set, .alternation, .assertion: false
        }
    }

    private mutating func emit(_ kind: Kind, next: Int32, operand: Int32) throws(PatternError) -> Int32 {
        if kinds.count >= Self.maximumInstructions {
            throw PatternError(
                offset: expandingOffset ?? 0,
                message: "The pattern is too large to compile (over \(Self.maximumInstructions) automaton states); use smaller repetition counts.",
                kind: .limit)
        }
        kinds.append(kind)
        nexts.append(next)
        operands.append(operand)
        return Int32(kinds.count - 1)
    }

    private mutating func classNumber(_ set: ScalarClass) -> Int32 {
        if let number = classIndex[set] { return number }
        let number = Int32(classes.count)
        classes.append(set)
        classIndex[set] = number
        return number
    }
}
