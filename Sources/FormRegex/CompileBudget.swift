/// DFA construction work shared by the patterns of one document, such as a form definition.
///
/// Each pattern's own limit (``Pattern/maximumWork``) bounds one pattern's compile time and memory,
/// but a definition can hold hundreds of patterns: 200 that each filled their DFA took 5.5 s and
/// 248 MiB to upload. Patterns compiled with one `CompileBudget` draw their construction work from
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

    public init(work: Int = CompileBudget.definitionWork, guaranteedWork: Int = CompileBudget.definitionWork) {
        remaining = max(0, work)
        guaranteedRemaining = max(0, guaranteedWork)
    }

    /// The most work the next pattern may use.
    var grant: Int {
        remaining > 0 ? min(Pattern.maximumWork, remaining) : min(Self.guaranteedWork, guaranteedRemaining)
    }

    func spend(_ work: Int) {
        if remaining > 0 {
            remaining = max(0, remaining - work)
        } else {
            guaranteedRemaining = max(0, guaranteedRemaining - work)
        }
    }
}
