/// DFA construction work shared by the patterns of one document, such as a form definition.
///
/// Each pattern's own limit (``Pattern/maximumWork``) bounds one pattern's compile time and memory,
/// but a definition can hold hundreds of patterns: 200 that each fill their DFA would take 5.5 s and
/// 248 MiB to compile. Patterns compiled with one `CompileBudget` draw their construction work from
/// it. Once it is spent, each later pattern still gets up to ``guaranteedWork`` from a second pool
/// of the same size, enough for the rules forms usually carry (the email rule needs 2,738 units,
/// the phone rule 3,330), so they keep their whole DFA however many large patterns came first. Past
/// both, patterns build no states and match with NFA steps alone, which stay linear in the input
/// but cost more per scalar.
///
/// Not thread-safe: one budget per document, used from one thread.
public final class CompileBudget {
    /// The default for one form definition: eight patterns' worth of the largest automata.
    public static let definitionWork = 8 * Pattern.maximumWork
    /// What each pattern may still use once the shared work is spent.
    public static let guaranteedWork = 10_000

    /// Shared work not yet drawn.
    public private(set) var remaining: Int
    /// What is left for the guaranteed work of patterns compiled after `remaining` ran out.
    public private(set) var guaranteedRemaining: Int

    /// `work` shared by all patterns first, then a pool of `guaranteedPool` from which each later
    /// pattern may take up to ``guaranteedWork``.
    public init(work: Int = CompileBudget.definitionWork, guaranteedPool: Int = CompileBudget.definitionWork) {
        remaining = max(0, work)
        guaranteedRemaining = max(0, guaranteedPool)
    }

    /// The most work the next pattern may use: what the shared work has left, but never less than
    /// its guaranteed share while the pool lasts (the pattern that empties the shared work included).
    var grant: Int {
        max(min(Pattern.maximumWork, remaining), min(Self.guaranteedWork, guaranteedRemaining))
    }

    /// Takes `work` from the shared work first and what it cannot cover from the guaranteed pool.
    func spend(_ work: Int) {
        let shared = min(work, remaining)
        remaining -= shared
        guaranteedRemaining = max(0, guaranteedRemaining - (work - shared))
    }
}
