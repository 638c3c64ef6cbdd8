import Testing
import FormRegex
import SeededRandom

/// A random pattern over the supported subset that can also produce strings it should match.
indirect enum GeneratedPattern {
    case atom(text: String, samples: [String])
    case sequence([GeneratedPattern])
    case choice([GeneratedPattern])
    case repeated(GeneratedPattern, min: Int, max: Int?, suffix: String)
    case group(GeneratedPattern, opening: String)

    static let atoms: [(String, [String])] = [
        ("a", ["a"]), ("b", ["b"]), ("c", ["c"]), ("1", ["1"]), ("-", ["-"]), ("é", ["é"]), (" ", [" "]),
        (#"\."#, ["."]), ("[ab]", ["a", "b"]), ("[^a]", ["b", "1", "é"]), ("[a-c]", ["a", "c"]),
        (#"\d"#, ["1", "7"]), (#"\D"#, ["a", "-"]), (#"\w"#, ["a", "_", "1", "é"]), (#"\W"#, ["-", " "]),
        (#"\s"#, [" "]), (#"\S"#, ["a", "é"]), (".", ["a", "-", "é"]), (#"[\w-]"#, ["a", "-"]),
        ("[é-ü]", ["é"]), (#"\p{L}"#, ["a", "é"]), (#"\p{Lu}"#, ["A"]), (#"[^\d\s]"#, ["a"]),
        ("$", [""]), (#"\Z"#, [""]), (#"\n"#, ["\n"]), (#"\s"#, ["\r", "\n"]), (#"\r?\n"#, ["\r\n", "\n"]),
        ("A", ["A"]), ("[A-Z0-9]", ["B", "5"]), ("σ", ["σ"]), ("[α-ω]", ["β", "ς"]), ("Ж", ["Ж"]), (#"\x{e9}"#, ["é"]), (#"\b"#, [""]), (#"\B"#, [""]),
    ]

    static func random(depth: Int, using rng: inout SeededGenerator) -> GeneratedPattern {
        let roll = depth <= 0 ? 0 : Int.random(in: 0..<10, using: &rng)
        switch roll {
        case 0...3:
            let atom = atoms.randomElement(using: &rng)!
            return .atom(text: atom.0, samples: atom.1)
        case 4...5:
            return .sequence((0..<Int.random(in: 2...4, using: &rng)).map { _ in random(depth: depth - 1, using: &rng) })
        case 6:
            return .choice((0..<Int.random(in: 2...3, using: &rng)).map { _ in random(depth: depth - 1, using: &rng) })
        case 7...8:
            let body = random(depth: depth - 1, using: &rng)
            // Lazy only over bodies that cannot match empty: ICU wrongly rejects, e.g., (?:-*?)*?x on "--x".
            let suffix = body.isNullable ? "" : ["", "", "?"].randomElement(using: &rng)!
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: return .repeated(body, min: 0, max: nil, suffix: suffix)
            case 1: return .repeated(body, min: 1, max: nil, suffix: suffix)
            case 2: return .repeated(body, min: 0, max: 1, suffix: suffix)
            case 3:
                let low = Int.random(in: 0...3, using: &rng)
                return .repeated(body, min: low, max: low + Int.random(in: 0...3, using: &rng), suffix: suffix)
            default: return .repeated(body, min: Int.random(in: 0...2, using: &rng), max: nil, suffix: suffix)
            }
        default:
            return .group(random(depth: depth - 1, using: &rng), opening: ["(", "(?:", "(?<g\(UInt32.random(in: 0...UInt32.max, using: &rng))>"].randomElement(using: &rng)!)
        }
    }

    var text: String {
        switch self {
        case .atom(let text, _): text
        case .sequence(let items): items.map(\.text).joined()
        case .choice(let branches): "(?:" + branches.map(\.text).joined(separator: "|") + ")"
        case .repeated(let body, let min, let max, let suffix):
            "(?:" + body.text + ")" + Self.quantifier(min: min, max: max) + suffix
        case .group(let body, let opening): opening + body.text + ")"
        }
    }

    private static func quantifier(min: Int, max: Int?) -> String {
        switch (min, max) {
        case (0, nil): "*"
        case (1, nil): "+"
        case (0, 1): "?"
        case (let low, nil): "{\(low),}"
        case (let low, let high?) where low == high: "{\(low)}"
        case (let low, let high?): "{\(low),\(high)}"
        }
    }

    var isNullable: Bool {
        switch self {
        case .atom(let text, _): [#"\b"#, #"\B"#, "$", #"\Z"#].contains(text)
        case .sequence(let items): items.allSatisfy(\.isNullable)
        case .choice(let branches): branches.contains(where: \.isNullable)
        case .repeated(let body, let min, _, _): min == 0 || body.isNullable
        case .group(let body, _): body.isNullable
        }
    }

    func sample(using rng: inout SeededGenerator) -> String {
        switch self {
        case .atom(_, let samples): samples.randomElement(using: &rng)!
        case .sequence(let items): items.map { $0.sample(using: &rng) }.joined()
        case .choice(let branches): branches.randomElement(using: &rng)!.sample(using: &rng)
        case .repeated(let body, let min, let max, _):
            (0..<Int.random(in: min...(max ?? min + 3), using: &rng)).map { _ in body.sample(using: &rng) }.joined()
        case .group(let body, _): body.sample(using: &rng)
        }
    }
}

@Suite struct DifferentialTests {
    static let alphabet: [Character] = ["a", "b", "c", "A", "1", "-", "_", " ", ".", "é", "\n", "\r", "\r\n", "\u{2028}", "😀", "Ж", "ж", "Σ", "ς", "日", "\u{301}", "\u{200D}"]

    /// Inputs for one pattern: strings it generates, near misses of them, and random strings.
    static func inputs(for pattern: GeneratedPattern, using rng: inout SeededGenerator) -> [String] {
        var inputs: [String] = []
        for _ in 0..<3 {
            let sample = pattern.sample(using: &rng)
            inputs.append(sample)
            var mutated = Array(sample)
            let position = mutated.isEmpty ? 0 : Int.random(in: 0..<mutated.count, using: &rng)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: mutated.insert(alphabet.randomElement(using: &rng)!, at: position)
            case 1 where !mutated.isEmpty: mutated.remove(at: position)
            default: if !mutated.isEmpty { mutated[position] = alphabet.randomElement(using: &rng)! }
            }
            inputs.append(String(mutated))
        }
        for _ in 0..<2 {
            inputs.append(String((0..<Int.random(in: 0...6, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }))
        }
        return inputs
    }

    @Test func agreesWithICUOnGeneratedPatterns() throws {
        var rng = SeededGenerator(state: 20_261_121)
        var compared = 0
        var matched = 0
        for _ in 0..<400 {
            let generated = GeneratedPattern.random(depth: 4, using: &rng)
            let caseInsensitive = Int.random(in: 0..<5, using: &rng) == 0
            var source = generated.text
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: source = "^" + source
            case 1: source += "$"
            case 2: source = "^" + source + "$"
            default: break
            }
            let pattern = try Pattern(source, caseInsensitive: caseInsensitive)
            for input in Self.inputs(for: generated, using: &rng) {
                let expected = try Reference.matches(source, input, caseInsensitive: caseInsensitive)
                #expect(pattern.matches(input) == expected, "\(pattern) on \(input.debugDescription): ICU says \(expected)")
                compared += 1
                if expected { matched += 1 }
            }
        }
        // The generator must exercise both outcomes, or the comparison proves little.
        #expect(compared >= 2_000)
        #expect(matched >= compared / 5)
    }
}
