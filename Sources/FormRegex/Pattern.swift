/// A compiled regular expression that answers whether a whole string matches, in linear time.
///
/// The syntax is the ICU (NSRegularExpression) flavour used in form definitions; see docs/engine.md,
/// "Regular expressions". Matching works on Unicode scalars, not grapheme clusters: `.` consumes one
/// scalar, so "é" written as "e" + U+0301 is two. A `Pattern` is immutable and can be shared across threads.
public struct Pattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern text as given.
    public let source: String
    /// Whether the pattern was compiled to ignore case.
    public let caseInsensitive: Bool
    private let automaton: Automaton

    /// The most DFA construction work one pattern may use (about 15 ms on this project's machine);
    /// past it the rest of the automaton is left to NFA steps at match time.
    public static let maximumWork = Automaton.workBudget

    /// Compiles `source`. Throws PatternError for syntax errors and unsupported features.
    /// With `budget`, DFA construction draws from the work it has left (see ``CompileBudget``).
    public init(_ source: String, caseInsensitive: Bool = false, budget: CompileBudget? = nil) throws(PatternError) {
        var parser = Parser(source, caseInsensitive: caseInsensitive)
        let syntax = try parser.parse()
        let program: Program
        do {
            program = try Program(syntax)
        } catch {
            throw PatternError(offset: Self.characterOffset(ofScalar: error.offset, in: source), message: error.message, kind: error.kind)
        }
        self.source = source
        self.caseInsensitive = caseInsensitive
        let automaton = Automaton(program, workBudget: budget?.grant ?? Self.maximumWork)
        budget?.spend(automaton.constructionWork)
        self.automaton = automaton
    }

    /// True when the WHOLE string matches (as NSPredicate "SELF MATCHES" does).
    public func matches(_ string: String) -> Bool {
        automaton.matches(string)
    }

    /// True when the whole substring matches; assertions see its bounds as the start and end.
    public func matches(_ string: Substring) -> Bool {
        automaton.matches(string)
    }

    /// How many DFA states were built at compile time (for diagnostics and tests).
    public var compiledStateCount: Int {
        automaton.stateCount
    }

    /// Whether matching may cost more than a table lookup per input scalar: the DFA was left unfinished
    /// (its budget ran out), so some inputs take the NFA fallback, a step over up to every instruction
    /// per scalar. Such a pattern is still linear in the input, with a constant as large as the
    /// program: a server validates with it off its event loops.
    public var mayBeSlow: Bool {
        !automaton.isComplete
    }

    /// The DFA construction work compilation used (for diagnostics and tests).
    public var compileWork: Int {
        automaton.constructionWork
    }

    /// The pattern as `/source/`, or `/source/i` when it ignores case.
    public var description: String {
        caseInsensitive ? "/\(source)/i" : "/\(source)/"
    }

    /// Patterns are equal when compiled from the same source with the same case option.
    public static func == (lhs: Pattern, rhs: Pattern) -> Bool {
        lhs.source == rhs.source && lhs.caseInsensitive == rhs.caseInsensitive
    }

    /// Hashes the source and the case option, as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(source)
        hasher.combine(caseInsensitive)
    }

    private static func characterOffset(ofScalar offset: Int, in source: String) -> Int {
        let scalars = source.unicodeScalars
        let end = scalars.index(scalars.startIndex, offsetBy: offset, limitedBy: scalars.endIndex) ?? scalars.endIndex
        return source[..<end].count
    }
}
