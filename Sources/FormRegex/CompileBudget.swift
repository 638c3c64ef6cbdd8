/// DFA construction work shared by the patterns of one document, such as a form definition.
///
/// Each pattern's own limit (``Pattern/maximumWork``) bounds one pattern's compile time and memory,
/// but a definition can hold hundreds of patterns: 200 that each filled their DFA took 5.5 s and
/// 248 MiB to upload. Patterns compiled with one `CompileBudget` draw their construction work from
/// it. Once it is spent, later patterns build no DFA states and match with NFA steps alone, which
/// stay linear in the input but cost more per scalar. The patterns forms usually carry need a few
/// thousand units each (the phone rule 3,330), so only a definition with many very large patterns reaches the end.
///
/// Not thread-safe: one budget per document, used from one thread.
public final class CompileBudget {
    /// The default for one form definition: eight patterns' worth of the largest automata, or about
    /// 2,400 of Formworks' phone number rule.
    public static let definitionWork = 8 * Pattern.maximumWork

    /// Work not yet drawn.
    public private(set) var remaining: Int

    public init(work: Int = CompileBudget.definitionWork) {
        remaining = max(0, work)
    }

    /// The most work the next pattern may use.
    var grant: Int {
        min(Pattern.maximumWork, remaining)
    }

    func spend(_ work: Int) {
        remaining = max(0, remaining - work)
    }
}
