// Whole-string matches per second: FormRegex against NSRegularExpression (ICU), same inputs, same run.
// Run with `swift run -c release RegexBenchmark`; takes about 30 seconds.
import Dispatch
import FormRegex
import Foundation

struct Case {
    var name: String
    var pattern: String
    var inputs: [String]
}

let cases = [
    Case(name: "email", pattern: #"[0-9a-z._%+-]+@[a-z0-9.-]+\.[a-z]{2,64}"#,
         inputs: ["jane.doe+forms@example.com", "john_smith99@mail.example.org", "not an email at all!", "jane@doe"]),
    Case(name: "phone", pattern: #"\(?\b([0-9]{2,3}|0((x|[0-9]){2,3}[0-9]{2}))\)?\s*[0-9]{4,5}[- ]*[0-9]{4}\b"#,
         inputs: ["(00) 12345-1234", "0012345678", "(000)1234 1234", "11 1234@5678"]),
    Case(name: "numerical", pattern: "[0-9]+", inputs: ["0123456789", "42", "12a", "9876543210123"]),
    Case(name: "name", pattern: #"\p{L}+(?:[ '-]\p{L}+)*"#,
         inputs: ["João da Silva", "Zoë O'Brien-Ærø", "Мария Иванова", "R2-D2"]),
]

let clock = ContinuousClock()

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Matches per second for `body` over `inputs`: the best of 20 batches of about 50 ms, so that other
/// processes on a shared machine disturb the figure less. Returns the rate and a checksum.
func measure(_ inputs: [String], _ body: (String) -> Bool) -> (rate: Double, hits: Int) {
    var hits = 0
    var best = 0.0
    var rounds = 100
    for _ in 0..<20 {
        let start = clock.now
        for _ in 0..<rounds {
            for input in inputs where body(input) { hits += 1 }
        }
        let elapsed = seconds(clock.now - start)
        best = max(best, Double(rounds * inputs.count) / elapsed)
        if elapsed < 0.05 { rounds = Int(Double(rounds) * min(10, 0.05 / max(elapsed, 1e-6))) + 1 }
    }
    return (best, hits)
}

func format(_ rate: Double) -> String {
    rate >= 1e6 ? String(format: "%.2f M/s", rate / 1e6) : String(format: "%.0f k/s", rate / 1e3)
}

// Compile cost, including adversarial patterns whose DFA construction stops at its budget.
print("compile (best of 20)          time         DFA states")
// The last three are near the size limits: many distinct classes, 1,990 distinct literals, and
// DFA construction stopped by its work budget.
var manyClasses = "(?:[a-b]"
for step in 1..<200 where manyClasses.count < 1_970 {
    manyClasses += "|[a-\\x{\(String(0x100 + step * 3, radix: 16))}]"
}
manyClasses += ")*"
let hostileSources = [cases[0].pattern, cases[1].pattern, "[ab]*a[ab]{20}", "(.*a){20}", "(?:[a-z0-9]{1,64}\\.){1,10}",
                      ".{0,1000}x", manyClasses, String((0..<1_990).map { Character(Unicode.Scalar(0x4E00 + $0)!) }),
                      "(?i)(?:\\w+\\s?){1,1000}(?:.*[a-z]){9}"]
for source in hostileSources {
    var best = Duration.seconds(1_000)
    var states = 0
    for _ in 0..<20 {
        let start = clock.now
        states = try Pattern(source).compiledStateCount
        best = min(best, clock.now - start)
    }
    print(String(source.prefix(28)).padding(toLength: 29, withPad: " ", startingAt: 0),
          String(format: "%7.2f ms", seconds(best) * 1e3), "  ", states)
}

print("pattern     FormRegex      NSRegularExpression   ratio   ns/match (FormRegex)")
for benchmark in cases {
    let pattern = try Pattern(benchmark.pattern)
    let icu = try NSRegularExpression(pattern: #"\A(?:"# + benchmark.pattern + #")\z"#)
    for input in benchmark.inputs {
        let range = NSRange(location: 0, length: (input as NSString).length)
        precondition(pattern.matches(input) == (icu.firstMatch(in: input, range: range) != nil), "disagreement on \(input)")
    }
    let ours = measure(benchmark.inputs) { pattern.matches($0) }
    let theirs = measure(benchmark.inputs) { input in
        icu.firstMatch(in: input, range: NSRange(location: 0, length: input.utf16.count)) != nil
    }
    print(benchmark.name.padding(toLength: 12, withPad: " ", startingAt: 0),
          format(ours.rate).padding(toLength: 15, withPad: " ", startingAt: 0),
          format(theirs.rate).padding(toLength: 22, withPad: " ", startingAt: 0),
          String(format: "%5.1fx", ours.rate / theirs.rate),
          String(format: "  %.0f", 1e9 / ours.rate))
}

// Shared across threads: the automaton is immutable, so there is no lock to contend on.
// Best of 30 short runs, as for the single-thread figures.
let email = try Pattern(cases[0].pattern)
let perThread = 100_000
for threads in [1, 2] {
    var best = 0.0
    for _ in 0..<30 {
        let start = clock.now
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            // Each thread owns its input strings, so only the Pattern is shared.
            let inputs = cases[0].inputs.map { String(decoding: Array($0.utf8), as: UTF8.self) }
            let pattern = email
            var hits = 0
            for index in 0..<perThread where pattern.matches(inputs[index & 3]) { hits += 1 }
            precondition(hits == perThread / 2)
        }
        best = max(best, Double(threads * perThread) / seconds(clock.now - start))
    }
    print("email, \(threads) thread(s) sharing one Pattern: \(format(best)) in total")
}

// Hostile input: linear for us; ICU backtracks exponentially (each extra 'a' doubles its time).
for count in [20, 5_000] {
    let hostile = String(repeating: "a", count: count) + "!"
    for source in ["(a+)+$", "(a|aa)*b", "(.*a){20}"] {
        let pattern = try Pattern(source)
        let start = clock.now
        precondition(!pattern.matches(hostile))
        let ours = clock.now - start
        var line = "\(source) on \(count) a's + '!': FormRegex \(ours)"
        if count == 20 && source == "(a+)+$" {
            let icu = try NSRegularExpression(pattern: #"\A(?:"# + source + #")\z"#)
            let icuStart = clock.now
            precondition(icu.firstMatch(in: hostile, range: NSRange(location: 0, length: hostile.utf16.count)) == nil)
            line += ", NSRegularExpression \(clock.now - icuStart)"
        }
        print(line)
    }
}
