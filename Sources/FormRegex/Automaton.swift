/// Matches whole strings against a `Program` in one pass over the input.
///
/// At compile time it builds a DFA over the scalars below U+0250 (ASCII and the Latin supplements,
/// which cover the names and addresses forms mostly see), breadth-first from the start state, until a
/// state or work budget runs out. Each DFA state is a set of NFA instructions reached right after consuming a
/// scalar (before following empty transitions, whose assertions depend on the next scalar), plus
/// whether that scalar was a word scalar. Input below U+0250 walks the table; another scalar uses the
/// column of a table scalar with the same class memberships (a Cyrillic letter behaves like "a" under
/// `\p{L}`). A scalar without such a column, or an unbuilt transition, takes one NFA step and returns
/// to the table when the resulting set is a known state. Either way each input scalar costs at most
/// one NFA step, so matching is linear in the input.
///
/// The automaton is written only during `init` and read-only afterwards, so a `Pattern` is shared
/// across threads without locks. The hot tables are raw allocations so that reading them involves
/// no reference counting, which would contend across threads sharing one pattern.
final class Automaton: @unchecked Sendable {
    static let maximumTableEntries = 65_536
    static let maximumStates = 4_096
    static let workBudget = 1_000_000

    /// Scalars below this have table transitions; UTF-8 encodes them in one or two bytes.
    static let tableLimit: UInt32 = 0x250
    /// NFA sets larger than this are not looked up among the DFA's states while matching.
    static let largestLookedUpSet = 256
    private static let membershipWords = (Int(tableLimit) + 63) / 64

    private static let dead: Int32 = 0
    private static let initial: Int32 = 1
    private static let unbuilt: Int32 = -1

    private let program: Program
    /// Equivalence class of each scalar below `tableLimit`: scalars in one class behave identically
    /// everywhere in the program, so the table needs one column per class, not per scalar.
    private let scalarClasses: UnsafeMutablePointer<UInt16>
    private let scalarClassCount: Int
    /// Columns for scalars at or above `tableLimit`: membership bits (bit 63: word scalar), sorted,
    /// with the column of each. Empty when the program has more than 63 classes.
    private let outsideKeys: [UInt64]
    private let outsideColumns: [UInt16]
    /// Membership of scalars below `tableLimit` in each program class, `membershipWords` per class.
    private let memberships: [UInt64]
    /// `table[state * scalarClassCount + scalarClass]`: next state, `dead`, or `unbuilt`.
    private let table: UnsafeMutablePointer<Int32>
    /// Whether each state accepts at the end of the input: `Acceptance` raw values.
    private let accepting: UnsafeMutablePointer<UInt8>

    private enum Acceptance: UInt8 {
        case rejects
        case accepts
        /// Left for match time: construction ran out of budget before this state was explored.
        case unknown
    }
    private let stateSets: [[Int32]]
    /// Whether construction built every transition: with a gap, some input takes NFA steps whose cost
    /// is the program's size per scalar, not a table lookup.
    let isComplete: Bool
    /// The program's instructions: what one NFA step may walk.
    var instructionCount: Int { program.count }
    private let stateAfterWord: [Bool]
    private let stateNumbers: [StateKey: Int32]

    private struct StateKey: Hashable {
        var set: [Int32]
        var afterWord: Bool
        var atStart: Bool
    }

    private struct Context {
        var atStart: Bool
        var atEnd: Bool
        /// Whether the last non-transparent scalar before the position is a word scalar.
        var afterWord: Bool
        var before: Wordness
        /// Before the line terminator that ends the input, where `$` also holds. Never true while
        /// building the DFA: that one position is always taken with an NFA step.
        var beforeFinalTerminator = false
    }

    /// Work the DFA construction used, at most the `workBudget` it was given (plus one step).
    let constructionWork: Int

    init(_ program: Program, workBudget: Int = Automaton.workBudget) {
        self.program = program
        let words = Self.membershipWords
        var memberships = [UInt64](repeating: 0, count: program.classes.count * words)
        for (number, set) in program.classes.enumerated() {
            if set.properties.isEmpty && !set.caseInsensitive {
                // Plain ranges: set their bits directly instead of testing every scalar.
                for range in set.ranges where range.lowerBound < Self.tableLimit {
                    for value in range.lowerBound...min(range.upperBound, Self.tableLimit - 1) {
                        memberships[number * words + Int(value / 64)] |= 1 << UInt64(value % 64)
                    }
                }
                if set.negated {
                    for index in 0..<words { memberships[number * words + index] = ~memberships[number * words + index] }
                }
            } else {
                for value in 0..<Self.tableLimit where set.contains(value) {
                    memberships[number * words + Int(value / 64)] |= 1 << UInt64(value % 64)
                }
            }
        }
        self.memberships = memberships

        // Partition the table's scalars by membership signature: one bit per program class, then
        // two bits for wordness when \b is used.
        let signatureWords = (program.classes.count + 2 + 63) / 64
        let wordnessBit = program.classes.count
        var signatures: [[UInt64]: UInt16] = [:]
        let classes = UnsafeMutablePointer<UInt16>.allocate(capacity: Int(Self.tableLimit))
        var representatives: [UInt32] = []
        var signature = [UInt64](repeating: 0, count: signatureWords)
        for value in 0..<Self.tableLimit {
            for index in signature.indices { signature[index] = 0 }
            for number in 0..<program.classes.count
            where memberships[number * words + Int(value / 64)] & (1 << UInt64(value % 64)) != 0 {
                signature[number / 64] |= 1 << UInt64(number % 64)
            }
            if program.usesWordBoundaries {
                // Bit by bit: the two bits may straddle a word (63 classes put them at 63 and 64).
                let wordness = Int(ScalarProperty.wordness(value).rawValue)
                for bit in 0..<2 where wordness & (1 << bit) != 0 {
                    signature[(wordnessBit + bit) / 64] |= 1 << UInt64((wordnessBit + bit) % 64)
                }
            }
            if let existing = signatures[signature] {
                classes[Int(value)] = existing
            } else {
                let number = UInt16(representatives.count)
                signatures[signature] = number
                classes[Int(value)] = number
                representatives.append(value)
            }
        }
        scalarClasses = classes
        scalarClassCount = representatives.count
        let outside = signatureWords == 1 ? signatures.map { (key: $0.key[0], column: $0.value) }.sorted { $0.key < $1.key } : []
        outsideKeys = outside.map(\.key)
        outsideColumns = outside.map(\.column)

        var builder = Builder(program: program, memberships: memberships, scalarClassCount: scalarClassCount)
        builder.build(representatives: representatives, workBudget: workBudget)
        constructionWork = builder.work
        table = .allocate(capacity: builder.table.count)
        table.initialize(from: builder.table, count: builder.table.count)
        accepting = .allocate(capacity: builder.accepting.count)
        accepting.initialize(from: builder.accepting, count: builder.accepting.count)
        stateSets = builder.sets
        isComplete = !builder.table.contains(Self.unbuilt) && !builder.accepting.contains(Acceptance.unknown.rawValue)
        stateAfterWord = builder.afterWord
        stateNumbers = builder.numbers
    }

    deinit {
        scalarClasses.deallocate()
        table.deallocate()
        accepting.deallocate()
    }

    var stateCount: Int { stateSets.count }

    /// The table column for `value`, or nil when only an NFA step can tell how it behaves.
    @inline(__always)
    private func column(_ value: UInt32) -> Int? {
        if value < Self.tableLimit { return Int(scalarClasses[Int(value)]) }
        return outsideColumn(value)
    }

    private func outsideColumn(_ value: UInt32) -> Int? {
        if outsideKeys.isEmpty { return nil }
        var key: UInt64 = 0
        for (number, set) in program.classes.enumerated() where set.contains(value) {
            key |= 1 << UInt64(number)
        }
        if program.usesWordBoundaries {
            key |= UInt64(ScalarProperty.wordness(value).rawValue) << UInt64(program.classes.count)
        }
        var low = 0
        var high = outsideKeys.count
        while low < high {
            let middle = (low + high) / 2
            if outsideKeys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < outsideKeys.count && outsideKeys[low] == key ? Int(outsideColumns[low]) : nil
    }

    /// Whether the input may end in DFA `state`.
    private func accepts(_ state: Int32) -> Bool {
        switch Acceptance(rawValue: accepting[Int(state)]) {
        case .accepts: return true
        case .rejects: return false
        default:
            var scratch = Scratch(count: program.count)
            let context = Context(atStart: state == Self.initial, atEnd: true, afterWord: stateAfterWord[Int(state)], before: .nonWord)
            return Self.close(stateSets[Int(state)], context, program: program, scratch: &scratch).accepts
        }
    }

    // MARK: Matching

    func matches(_ string: String) -> Bool {
        if let result = string.utf8.withContiguousStorageIfAvailable({ matches(utf8: $0) }) {
            return result
        }
        return Array(string.utf8).withUnsafeBufferPointer { matches(utf8: $0) }
    }

    func matches(_ string: Substring) -> Bool {
        if let result = string.utf8.withContiguousStorageIfAvailable({ matches(utf8: $0) }) {
            return result
        }
        return Array(string.utf8).withUnsafeBufferPointer { matches(utf8: $0) }
    }

    private func matches(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var state = Self.initial
        var index = 0
        let count = bytes.count
        let terminator = program.usesFinalTerminator ? Self.finalTerminatorStart(bytes) : count + 1
        let limit = min(count, terminator)
        let stride = scalarClassCount
        while index < limit {
            let start = index
            let lead = bytes[index]
            let next: Int32
            if lead < 0x80 {
                index &+= 1
                next = table[Int(state) &* stride &+ Int(scalarClasses[Int(lead)])]
            } else {
                var iterator = UTF8Scalars(bytes: bytes, index: index)
                guard let scalar = iterator.next(), let column = column(scalar.value) else { break }
                index = iterator.index
                next = table[Int(state) &* stride &+ column]
            }
            if next > 0 {
                state = next
                continue
            }
            if next == Self.dead { return false }
            index = start
            break
        }
        if index == count { return accepts(state) }
        var iterator = UTF8Scalars(bytes: bytes, index: index)
        return finish(from: state, scalars: &iterator, terminator: terminator)
    }

    /// Where the line terminator that ends the input starts (`\r\n` counts as one), or past the end.
    private static func finalTerminatorStart(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let count = bytes.count
        guard count > 0 else { return 1 }
        let last = bytes[count - 1]
        if count >= 2 && bytes[count - 2] == 0x0D && last == 0x0A { return count - 2 }
        if last >= 0x0A && last <= 0x0D { return count - 1 }
        if count >= 2 && bytes[count - 2] == 0xC2 && last == 0x85 { return count - 2 }
        if count >= 3 && bytes[count - 3] == 0xE2 && bytes[count - 2] == 0x80 && (last == 0xA8 || last == 0xA9) {
            return count - 3
        }
        return count + 1
    }

    /// Continues from DFA `state` over the remaining scalars, taking NFA steps where the table has
    /// none and at `terminator`, the byte offset where `$` holds before a final line terminator.
    private func finish(from state: Int32, scalars: inout UTF8Scalars, terminator: Int) -> Bool {
        var scratch = Scratch(count: program.count)
        var current: Int32? = state
        var set: [Int32] = []
        var afterWord = false
        var atStart = false
        while true {
            let position = scalars.index
            guard let scalar = scalars.next() else { break }
            let value = scalar.value
            let beforeFinalTerminator = position == terminator
            if let state = current {
                if !beforeFinalTerminator, let column = column(value) {
                    let next = table[Int(state) * scalarClassCount + column]
                    if next == Self.dead { return false }
                    if next > 0 {
                        current = next
                        continue
                    }
                }
                set = stateSets[Int(state)]
                afterWord = stateAfterWord[Int(state)]
                atStart = state == Self.initial
            }
            let before = program.usesWordBoundaries ? ScalarProperty.wordness(value) : .nonWord
            let context = Context(atStart: atStart, atEnd: false, afterWord: afterWord, before: before,
                                  beforeFinalTerminator: beforeFinalTerminator)
            let reached = Self.close(set, context, program: program, scratch: &scratch)
            set = Self.step(reached.consumers, value, program: program, memberships: memberships, scratch: &scratch)
            if set.isEmpty { return false }
            afterWord = before.afterWord(previous: afterWord)
            atStart = false
            // Hashing a set of thousands of instructions on every scalar would cost more than the
            // step; a set that large is rarely a DFA state, and the NFA step is exact anyway.
            current = set.count <= Self.largestLookedUpSet ? stateNumbers[StateKey(set: set, afterWord: afterWord, atStart: false)] : nil
        }
        if let state = current { return accepts(state) }
        let context = Context(atStart: atStart, atEnd: true, afterWord: afterWord, before: .nonWord)
        return Self.close(set, context, program: program, scratch: &scratch).accepts
    }

    // MARK: NFA steps

    /// Visit marks for one closure or step; a new generation clears them in O(1).
    private struct Scratch {
        var marks: [UInt32]
        var generation: UInt32 = 0
        var stack: [Int32] = []
        /// Membership of the current step's scalar in each program class, valid where the stamp is
        /// the step's generation: a scalar outside the table is tested once per class, not once per
        /// instruction (thousands, each re-deriving case variants, in a large case-insensitive pattern).
        var classStamps: [UInt32] = []
        var classMembers: [Bool] = []

        init(count: Int) {
            marks = [UInt32](repeating: 0, count: count)
        }

        mutating func nextGeneration() {
            generation &+= 1
            if generation == 0 {
                for index in marks.indices { marks[index] = 0 }
                generation = 1
            }
        }
    }

    /// Follows empty transitions from `set`: returns the scalar-consuming instructions reached and
    /// whether `.match` was reached. Assertions are evaluated in `context`.
    private static func close(_ set: [Int32], _ context: Context, program: Program, scratch: inout Scratch) -> (consumers: [Int32], accepts: Bool, work: Int) {
        scratch.nextGeneration()
        var consumers: [Int32] = []
        var accepts = false
        var work = 0
        scratch.stack.removeAll(keepingCapacity: true)
        for instruction in set.reversed() { scratch.stack.append(instruction) }
        while let instruction = scratch.stack.popLast() {
            let index = Int(instruction)
            if scratch.marks[index] == scratch.generation { continue }
            scratch.marks[index] = scratch.generation
            work += 1
            switch program.kinds[index] {
            case .scalar:
                consumers.append(instruction)
            case .match:
                accepts = true
            case .split:
                scratch.stack.append(program.operands[index])
                scratch.stack.append(program.nexts[index])
            case .assertion:
                if holds(Assertion(rawValue: UInt8(program.operands[index]))!, context) {
                    scratch.stack.append(program.nexts[index])
                }
            }
        }
        return (consumers, accepts, work)
    }

    private static func holds(_ assertion: Assertion, _ context: Context) -> Bool {
        switch assertion {
        case .start: context.atStart
        case .end: context.atEnd
        case .endBeforeFinalTerminator: context.atEnd || context.beforeFinalTerminator
        case .wordBoundary: context.before != .transparent && context.afterWord != (context.before == .word)
        case .notWordBoundary: context.before == .transparent || context.afterWord == (context.before == .word)
        }
    }

    /// The sorted set of instructions reached by consuming `value` from `consumers`.
    private static func step(_ consumers: [Int32], _ value: UInt32, program: Program, memberships: [UInt64], scratch: inout Scratch) -> [Int32] {
        scratch.nextGeneration()
        var result: [Int32] = []
        for instruction in consumers {
            let number = Int(program.operands[Int(instruction)])
            let member: Bool
            if value < tableLimit {
                member = memberships[number * membershipWords + Int(value / 64)] & (1 << UInt64(value % 64)) != 0
            } else {
                if scratch.classStamps.isEmpty {
                    scratch.classStamps = [UInt32](repeating: 0, count: program.classes.count)
                    scratch.classMembers = [Bool](repeating: false, count: program.classes.count)
                }
                if scratch.classStamps[number] != scratch.generation {
                    scratch.classStamps[number] = scratch.generation
                    scratch.classMembers[number] = program.classes[number].contains(value)
                }
                member = scratch.classMembers[number]
            }
            guard member else { continue }
            let next = program.nexts[Int(instruction)]
            if scratch.marks[Int(next)] != scratch.generation {
                scratch.marks[Int(next)] = scratch.generation
                result.append(next)
            }
        }
        result.sort()
        return result
    }

    // MARK: Construction

    private struct Builder {
        let program: Program
        let memberships: [UInt64]
        let scalarClassCount: Int
        var table: [Int32] = []
        var accepting: [UInt8] = []
        var sets: [[Int32]] = []
        var afterWord: [Bool] = []
        var numbers: [StateKey: Int32] = [:]
        var scratch: Scratch
        var work = 0

        init(program: Program, memberships: [UInt64], scalarClassCount: Int) {
            self.program = program
            self.memberships = memberships
            self.scalarClassCount = scalarClassCount
            scratch = Scratch(count: program.count)
        }

        mutating func build(representatives: [UInt32], workBudget: Int) {
            let maximumStates = min(Automaton.maximumStates, max(16, Automaton.maximumTableEntries / scalarClassCount))
            add(StateKey(set: [], afterWord: false, atStart: false))
            add(StateKey(set: [program.start], afterWord: false, atStart: true))
            var state = 1
            while state < sets.count && work < workBudget {
                let stateIsInitial = state == Int(Automaton.initial)
                var closures: [Wordness: [Int32]] = [:]
                for scalarClass in 0..<scalarClassCount where work < workBudget {
                    let value = representatives[scalarClass]
                    let before = program.usesWordBoundaries ? ScalarProperty.wordness(value) : .nonWord
                    let consumers: [Int32]
                    if let cached = closures[before] {
                        consumers = cached
                    } else {
                        let context = Context(atStart: stateIsInitial, atEnd: false, afterWord: afterWord[state], before: before)
                        let reached = Automaton.close(sets[state], context, program: program, scratch: &scratch)
                        work += reached.work
                        consumers = reached.consumers
                        closures[before] = consumers
                    }
                    let next = Automaton.step(consumers, value, program: program, memberships: memberships, scratch: &scratch)
                    work += consumers.count + next.count + 1
                    let target: Int32
                    if next.isEmpty {
                        target = Automaton.dead
                    } else {
                        let key = StateKey(set: next, afterWord: before.afterWord(previous: afterWord[state]), atStart: false)
                        if let known = numbers[key] {
                            target = known
                        } else if sets.count < maximumStates {
                            target = add(key)
                        } else {
                            target = Automaton.unbuilt
                        }
                    }
                    table[state * scalarClassCount + scalarClass] = target
                }
                let context = Context(atStart: stateIsInitial, atEnd: true, afterWord: afterWord[state], before: .nonWord)
                let reached = Automaton.close(sets[state], context, program: program, scratch: &scratch)
                work += reached.work
                accepting[state] = reached.accepts ? Acceptance.accepts.rawValue : Acceptance.rejects.rawValue
                state += 1
            }
        }

        @discardableResult
        private mutating func add(_ key: StateKey) -> Int32 {
            let number = Int32(sets.count)
            sets.append(key.set)
            afterWord.append(key.afterWord)
            numbers[key] = number
            accepting.append(number == Automaton.dead ? Acceptance.rejects.rawValue : Acceptance.unknown.rawValue)
            // The dead state loops to itself; others start unbuilt until explored.
            table.append(contentsOf: repeatElement(number == Automaton.dead ? Automaton.dead : Automaton.unbuilt, count: scalarClassCount))
            return number
        }
    }
}

/// Decodes scalars from valid UTF-8, starting at a scalar boundary.
private struct UTF8Scalars: IteratorProtocol {
    let bytes: UnsafeBufferPointer<UInt8>
    var index: Int

    mutating func next() -> Unicode.Scalar? {
        guard index < bytes.count else { return nil }
        let lead = UInt32(bytes[index])
        let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        guard index + length <= bytes.count else {
            index = bytes.count
            return "\u{FFFD}"
        }
        var value = length == 1 ? lead : lead & (0x7F >> UInt32(length))
        for offset in 1..<max(length, 1) {
            value = value << 6 | UInt32(bytes[index + offset] & 0x3F)
        }
        index += length
        return Unicode.Scalar(value) ?? "\u{FFFD}"
    }
}
