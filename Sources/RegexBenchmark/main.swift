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
]

let clock = ContinuousClock()
let duration = Duration.seconds(2)

/// Runs `body` over `inputs` in rounds for about `duration`; returns matches per second and a checksum.
func measure(_ inputs: [String], _ body: (String) -> Bool) -> (rate: Double, hits: Int) {
    var hits = 0
    var calls = 0
    let start = clock.now
    var elapsed = Duration.zero
    while elapsed < duration {
        for _ in 0..<1_000 {
            for input in inputs where body(input) { hits += 1 }
        }
        calls += 1_000 * inputs.count
        elapsed = clock.now - start
    }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return (Double(calls) / seconds, hits)
}

func format(_ rate: Double) -> String {
    rate >= 1e6 ? String(format: "%.2f M/s", rate / 1e6) : String(format: "%.0f k/s", rate / 1e3)
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
let email = try Pattern(cases[0].pattern)
let threads = 2
let perThread = 2_000_000
let parallelStart = clock.now
DispatchQueue.concurrentPerform(iterations: threads) { _ in
    // Each thread owns its input strings, so only the Pattern is shared.
    let inputs = cases[0].inputs.map { String(decoding: Array($0.utf8), as: UTF8.self) }
    var hits = 0
    for index in 0..<perThread where email.matches(inputs[index & 3]) { hits += 1 }
    precondition(hits == perThread / 2)
}
let parallel = clock.now - parallelStart
let parallelSeconds = Double(parallel.components.seconds) + Double(parallel.components.attoseconds) / 1e18
print("email, \(threads) threads sharing one Pattern: \(format(Double(threads * perThread) / parallelSeconds)) in total")

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
