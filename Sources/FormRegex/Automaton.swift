/// Matches whole strings against a `Program` in one pass over the input.
///
/// At compile time it builds a DFA over ASCII, breadth-first from the start state, until a state or
/// work budget runs out. Each DFA state is a set of NFA instructions reached right after consuming a
/// scalar (before following empty transitions, whose assertions depend on the next scalar), plus
/// whether that scalar was a word scalar. ASCII input walks the table; a non-ASCII scalar or an
/// unbuilt transition takes one NFA step and returns to the table when the resulting set is a known
/// state. Either way each input scalar costs at most one NFA step, so matching is linear in the
/// input. The automaton is immutable once built, so a `Pattern` is shared across threads without locks.
final class Automaton: Sendable {
    static let maximumTableEntries = 65_536
    static let maximumStates = 4_096
    static let workBudget = 2_000_000

    private static let dead: Int32 = 0
    private static let initial: Int32 = 1
    private static let unbuilt: Int32 = -1

    private let program: Program
    /// Equivalence class of each ASCII byte: bytes in one class behave identically everywhere.
    private let byteClasses: [UInt8]
    private let byteClassCount: Int
    /// ASCII membership of each program class, as two 64-bit halves.
    private let asciiLow: [UInt64]
    private let asciiHigh: [UInt64]
    /// `table[state * byteClassCount + byteClass]`: next state, `dead`, or `unbuilt`.
    private let table: [Int32]
    private let accepting: [Bool]
    private let stateSets: [[Int32]]
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
        var afterWord: Bool
        var beforeWord: Bool
    }

    init(_ program: Program) {
        self.program = program
        var low = [UInt64](repeating: 0, count: program.classes.count)
        var high = [UInt64](repeating: 0, count: program.classes.count)
        for (number, set) in program.classes.enumerated() {
            for byte in 0..<128 where set.contains(UInt32(byte)) {
                if byte < 64 { low[number] |= 1 << UInt64(byte) } else { high[number] |= 1 << UInt64(byte - 64) }
            }
        }
        asciiLow = low
        asciiHigh = high

        // Partition ASCII by membership signature (and wordness, when \b is used).
        var signatures: [[Bool]: UInt8] = [:]
        var classes = [UInt8](repeating: 0, count: 128)
        var representatives: [UInt8] = []
        for byte in 0..<128 {
            var signature = (0..<program.classes.count).map { number in
                byte < 64 ? low[number] & (1 << UInt64(byte)) != 0 : high[number] & (1 << UInt64(byte - 64)) != 0
            }
            if program.usesWordBoundaries { signature.append(ScalarProperty.isWord(UInt32(byte))) }
            if let existing = signatures[signature] {
                classes[byte] = existing
            } else {
                let number = UInt8(representatives.count)
                signatures[signature] = number
                classes[byte] = number
                representatives.append(UInt8(byte))
            }
        }
        byteClasses = classes
        byteClassCount = representatives.count

        var builder = Builder(program: program, byteClassCount: byteClassCount)
        builder.build(representatives: representatives, asciiLow: low, asciiHigh: high)
        table = builder.table
        accepting = builder.accepting
        stateSets = builder.sets
        stateAfterWord = builder.afterWord
        stateNumbers = builder.numbers
    }

    var stateCount: Int { stateSets.count }

    // MARK: Matching

    func matches(_ string: String) -> Bool {
        if let result = string.utf8.withContiguousStorageIfAvailable({ matches(utf8: $0) }) {
            return result
        }
        var iterator = string.unicodeScalars.makeIterator()
        return finish(from: Self.initial, scalars: &iterator)
    }

    func matches(_ string: Substring) -> Bool {
        if let result = string.utf8.withContiguousStorageIfAvailable({ matches(utf8: $0) }) {
            return result
        }
        var iterator = string.unicodeScalars.makeIterator()
        return finish(from: Self.initial, scalars: &iterator)
    }

    private func matches(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var state = Self.initial
        var index = 0
        let count = bytes.count
        let stride = byteClassCount
        let stopped: Bool = table.withUnsafeBufferPointer { table in
            byteClasses.withUnsafeBufferPointer { classes in
                while index < count {
                    let byte = bytes[index]
                    guard byte < 0x80 else { return true }
                    let next = table[Int(state) &* stride &+ Int(classes[Int(byte)])]
                    guard next > 0 else {
                        if next == Self.dead { state = Self.dead }
                        return true
                    }
                    state = next
                    index &+= 1
                }
                return false
            }
        }
        if !stopped { return accepting[Int(state)] }
        if state == Self.dead { return false }
        var iterator = UTF8Scalars(bytes: bytes, index: index)
        return finish(from: state, scalars: &iterator)
    }

    /// Continues from DFA `state` over the remaining scalars, taking NFA steps where the table has none.
    private func finish<Scalars: IteratorProtocol<Unicode.Scalar>>(from state: Int32, scalars: inout Scalars) -> Bool {
        var scratch = Scratch(count: program.count)
        var current: Int32? = state
        var set: [Int32] = []
        var afterWord = false
        var atStart = false
        while let scalar = scalars.next() {
            let value = scalar.value
            if let state = current {
                if value < 0x80 {
                    let next = table[Int(state) * byteClassCount + Int(byteClasses[Int(value)])]
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
            let beforeWord = program.usesWordBoundaries && ScalarProperty.isWord(scalar)
            let context = Context(atStart: atStart, atEnd: false, afterWord: afterWord, beforeWord: beforeWord)
            let reached = Self.close(set, context, program: program, scratch: &scratch)
            set = Self.step(reached.consumers, value, program: program, asciiLow: asciiLow, asciiHigh: asciiHigh, scratch: &scratch)
            if set.isEmpty { return false }
            afterWord = beforeWord
            atStart = false
            current = stateNumbers[StateKey(set: set, afterWord: afterWord, atStart: false)]
        }
        if let state = current { return accepting[Int(state)] }
        let context = Context(atStart: atStart, atEnd: true, afterWord: afterWord, beforeWord: false)
        return Self.close(set, context, program: program, scratch: &scratch).accepts
    }

    // MARK: NFA steps

    /// Visit marks for one closure or step; a new generation clears them in O(1).
    private struct Scratch {
        var marks: [UInt32]
        var generation: UInt32 = 0
        var stack: [Int32] = []

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
        case .wordBoundary: context.afterWord != context.beforeWord
        case .notWordBoundary: context.afterWord == context.beforeWord
        }
    }

    /// The sorted set of instructions reached by consuming `value` from `consumers`.
    private static func step(_ consumers: [Int32], _ value: UInt32, program: Program, asciiLow: [UInt64], asciiHigh: [UInt64], scratch: inout Scratch) -> [Int32] {
        scratch.nextGeneration()
        var result: [Int32] = []
        for instruction in consumers {
            let number = Int(program.operands[Int(instruction)])
            let member: Bool
            if value < 64 {
                member = asciiLow[number] & (1 << UInt64(value)) != 0
            } else if value < 128 {
                member = asciiHigh[number] & (1 << UInt64(value - 64)) != 0
            } else {
                member = program.classes[number].contains(value)
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
        let byteClassCount: Int
        var table: [Int32] = []
        var accepting: [Bool] = []
        var sets: [[Int32]] = []
        var afterWord: [Bool] = []
        var numbers: [StateKey: Int32] = [:]
        var scratch: Scratch
        var work = 0

        init(program: Program, byteClassCount: Int) {
            self.program = program
            self.byteClassCount = byteClassCount
            scratch = Scratch(count: program.count)
        }

        mutating func build(representatives: [UInt8], asciiLow: [UInt64], asciiHigh: [UInt64]) {
            let maximumStates = min(Automaton.maximumStates, max(16, Automaton.maximumTableEntries / byteClassCount))
            add(StateKey(set: [], afterWord: false, atStart: false))
            add(StateKey(set: [program.start], afterWord: false, atStart: true))
            var state = 1
            while state < sets.count {
                let stateIsInitial = state == Int(Automaton.initial)
                var closures: [Bool: [Int32]] = [:]
                for byteClass in 0..<byteClassCount where work < Automaton.workBudget {
                    let byte = representatives[byteClass]
                    let beforeWord = program.usesWordBoundaries && ScalarProperty.isWord(UInt32(byte))
                    let consumers: [Int32]
                    if let cached = closures[beforeWord] {
                        consumers = cached
                    } else {
                        let context = Context(atStart: stateIsInitial, atEnd: false, afterWord: afterWord[state], beforeWord: beforeWord)
                        let reached = Automaton.close(sets[state], context, program: program, scratch: &scratch)
                        work += reached.work
                        consumers = reached.consumers
                        closures[beforeWord] = consumers
                    }
                    let next = Automaton.step(consumers, UInt32(byte), program: program, asciiLow: asciiLow, asciiHigh: asciiHigh, scratch: &scratch)
                    work += next.count + 1
                    let target: Int32
                    if next.isEmpty {
                        target = Automaton.dead
                    } else {
                        let key = StateKey(set: next, afterWord: beforeWord, atStart: false)
                        if let known = numbers[key] {
                            target = known
                        } else if sets.count < maximumStates {
                            target = add(key)
                        } else {
                            target = Automaton.unbuilt
                        }
                    }
                    table[state * byteClassCount + byteClass] = target
                }
                let context = Context(atStart: stateIsInitial, atEnd: true, afterWord: afterWord[state], beforeWord: false)
                accepting[state] = Automaton.close(sets[state], context, program: program, scratch: &scratch).accepts
                state += 1
            }
        }

        @discardableResult
        private mutating func add(_ key: StateKey) -> Int32 {
            let number = Int32(sets.count)
            sets.append(key.set)
            afterWord.append(key.afterWord)
            numbers[key] = number
            accepting.append(false)
            // The dead state loops to itself; others start unbuilt until explored.
            table.append(contentsOf: repeatElement(number == Automaton.dead ? Automaton.dead : Automaton.unbuilt, count: byteClassCount))
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
