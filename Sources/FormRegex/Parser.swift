/// Parses ICU-flavoured pattern text into `Syntax`, rejecting what an automaton cannot match.
struct Parser {
    static let maximumLength = 2_000
    static let maximumDepth = 100
    static let maximumCount = 1_000

    private struct Flags {
        var caseInsensitive: Bool
        var dotMatchesLineTerminators = false
    }

    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var depth = 0
    private var flags: Flags
    private var groupNames: Set<String> = []
    /// Quoted literals (`\Q...\E`) before the last one, which alone takes a following quantifier.
    private var quotedPrefix: [Syntax] = []

    init(_ source: String, caseInsensitive: Bool) {
        scalars = Array(source.unicodeScalars)
        flags = Flags(caseInsensitive: caseInsensitive)
    }

    mutating func parse() throws(PatternError) -> Syntax {
        if scalars.count > Self.maximumLength {
            throw error("The pattern is longer than \(Self.maximumLength) characters; shorten it.", at: Self.maximumLength, kind: .limit)
        }
        let syntax = try parseAlternation()
        if position < scalars.count {
            throw error("Unmatched ')': remove it or escape it as \\).", at: position)
        }
        return syntax
    }

    // MARK: Structure

    private mutating func parseAlternation() throws(PatternError) -> Syntax {
        var branches = [try parseConcatenation()]
        while peek == "|" {
            position += 1
            branches.append(try parseConcatenation())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func parseConcatenation() throws(PatternError) -> Syntax {
        var items: [Syntax] = []
        while let scalar = peek, scalar != "|", scalar != ")" {
            let start = position
            guard let atom = try parseAtom() else { continue }
            items.append(contentsOf: quotedPrefix)
            quotedPrefix.removeAll()
            if case .assertion = atom, scalars[start] == "\\", let next = peek, "*+?{".unicodeScalars.contains(next) {
                throw error("An assertion such as \\b or \\A cannot be repeated; remove the quantifier.", at: position)
            }
            items.append(try parseQuantifier(applyingTo: atom, atomStart: start))
        }
        return items.count == 1 ? items[0] : (items.isEmpty ? .empty : .concatenation(items))
    }

    /// Returns nil for constructs that match nothing and take no quantifier (comments, flag groups).
    private mutating func parseAtom() throws(PatternError) -> Syntax? {
        let start = position
        let scalar = scalars[position]
        position += 1
        switch scalar {
        case "(":
            return try parseGroup(openedAt: start)
        case "[":
            return .set(try parseBracket(openedAt: start))
        case ".":
            return .set(flags.dotMatchesLineTerminators ? .any : .anyExceptLineTerminator)
        case "^":
            return .assertion(.start)
        case "$":
            return .assertion(.endBeforeFinalTerminator)
        case "\\":
            return try parseEscapeOutsideBracket(escapeAt: start)
        case "*", "+", "?":
            throw error("Quantifier '\(scalar)' has nothing to repeat; escape it as \\\(scalar) for a literal.", at: start)
        case "{":
            throw error("'{' must follow something to repeat, as in a{2,3}; escape it as \\{ for a literal.", at: start)
        case "}":
            throw error("Unescaped '}'; escape it as \\} for a literal.", at: start)
        default:
            return literal(scalar.value)
        }
    }

    private mutating func parseGroup(openedAt start: Int) throws(PatternError) -> Syntax? {
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maximumDepth {
            throw error("Groups are nested more than \(Self.maximumDepth) deep; simplify the pattern.", at: start, kind: .limit)
        }
        let saved = flags
        if peek == "?" {
            position += 1
            guard let kind = peek else {
                throw error("Unterminated group: add ')'.", at: start)
            }
            switch kind {
            case ":":
                position += 1
            case "<":
                position += 1
                if peek == "=" || peek == "!" {
                    throw error("Lookbehind ((?<= ) and (?<! )) is not supported: it cannot be matched in linear time by this engine.", at: start, kind: .unsupported)
                }
                try skipGroupName(groupAt: start)
            case "=", "!":
                throw error("Lookahead ((?= ) and (?! )) is not supported: it cannot be matched in linear time by this engine.", at: start, kind: .unsupported)
            case ">":
                throw error("Atomic groups ((?> )) are not supported: they change which strings match, which an automaton cannot express.", at: start, kind: .unsupported)
            case "#":
                while let next = peek, next != ")" { position += 1 }
                guard peek == ")" else { throw error("Unterminated comment (?# ...): add ')'.", at: start) }
                position += 1
                return nil
            default:
                if try parseFlags(groupAt: start) {
                    return nil
                }
            }
        }
        let inner = try parseAlternation()
        guard peek == ")" else {
            throw error("Unterminated group: add ')'.", at: start)
        }
        position += 1
        flags = saved
        return inner
    }

    private mutating func skipGroupName(groupAt start: Int) throws(PatternError) {
        var name = String.UnicodeScalarView()
        while let scalar = peek, ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) {
            name.append(scalar)
            position += 1
        }
        guard peek == ">", let first = name.first, !("0"..."9").contains(first) else {
            throw error("Malformed group name: write (?<name>...) with an ASCII letter followed by ASCII letters and digits.", at: start)
        }
        position += 1
        guard groupNames.insert(String(name)).inserted else {
            throw error("The group name '\(String(name))' is used twice; give each named group its own name.", at: start)
        }
    }

    /// Parses `(?i)`, `(?-i)`, `(?i:...)` and `(?s)`. Returns true for a flag-only group `(?i)`, whose
    /// flags stay in force to the end of the enclosing group; false when a scoped group body follows.
    private mutating func parseFlags(groupAt start: Int) throws(PatternError) -> Bool {
        if peek == ")" {
            throw error("Empty group syntax '(?)'; use (?:...), (?<name>...) or (?i).", at: start)
        }
        var turnOn = true
        var updated = flags
        while let scalar = peek {
            position += 1
            switch scalar {
            case "i": updated.caseInsensitive = turnOn
            case "s": updated.dotMatchesLineTerminators = turnOn
            case "-": turnOn = false
            case ")":
                flags = updated
                return true
            case ":":
                flags = updated
                return false
            case "m", "x", "w", "u":
                throw error("The inline flag '\(scalar)' is not supported; only (?i) and (?s) are.", at: position - 1, kind: .unsupported)
            default:
                throw error("Unknown group syntax after '(?'; use (?:...), (?<name>...) or (?i).", at: start)
            }
        }
        throw error("Unterminated group: add ')'.", at: start)
    }

    private mutating func parseQuantifier(applyingTo atom: Syntax, atomStart: Int) throws(PatternError) -> Syntax {
        guard let scalar = peek else { return atom }
        let start = position
        let bounds: (min: Int, max: Int?)
        switch scalar {
        case "*": position += 1; bounds = (0, nil)
        case "+": position += 1; bounds = (1, nil)
        case "?": position += 1; bounds = (0, 1)
        case "{": bounds = try parseInterval()
        default: return atom
        }
        if peek == "?" {
            position += 1
        } else if peek == "+" {
            throw error("Possessive quantifiers (*+, ++, ?+, {n,m}+) are not supported: they change which strings match (a*+a matches nothing); use the plain quantifier.", at: position, kind: .unsupported)
        }
        if let next = peek, next == "*" || next == "+" || next == "?" || next == "{" {
            throw error("A quantifier cannot follow another quantifier; wrap the first in a group, as in (?:a{2}){3}.", at: position)
        }
        return .repetition(atom, min: bounds.min, max: bounds.max, offset: start)
    }

    private mutating func parseInterval() throws(PatternError) -> (min: Int, max: Int?) {
        let start = position
        position += 1
        let malformed = error("Malformed interval: write {n}, {n,} or {n,m} with n ≤ m ≤ \(Self.maximumCount), or escape '{' as \\{.", at: start)
        guard let low = parseDecimal() else { throw malformed }
        var high: Int? = low
        if peek == "," {
            position += 1
            high = parseDecimal()
        }
        guard peek == "}" else { throw malformed }
        position += 1
        if low > Self.maximumCount || (high ?? 0) > Self.maximumCount {
            throw error("Repetition counts above \(Self.maximumCount) are not supported; use a smaller bound or '*'.", at: start, kind: .limit)
        }
        if let high, low > high {
            throw error("Interval {\(low),\(high)} has its minimum above its maximum.", at: start)
        }
        return (low, high)
    }

    private mutating func parseDecimal() -> Int? {
        var value: Int?
        while let scalar = peek, let digit = Self.digitValue(scalar, radix: 10) {
            value = min((value ?? 0) * 10 + digit, 1_000_000)
            position += 1
        }
        return value
    }

    // MARK: Escapes

    private enum Escape {
        case scalar(UInt32)
        case set(ScalarClass)
        case assertion(Assertion)
        case sequence([UInt32])
        case lineBreak
    }

    private mutating func parseEscapeOutsideBracket(escapeAt start: Int) throws(PatternError) -> Syntax? {
        switch try parseEscape(escapeAt: start, inBracket: false) {
        case .scalar(let value):
            return literal(value)
        case .set(var set):
            if flags.caseInsensitive { set.ignoreCase() }
            return .set(set)
        case .assertion(let assertion):
            return .assertion(assertion)
        case .sequence(let values):
            guard let last = values.last else { return nil }
            quotedPrefix = values.dropLast().map { literal($0) }
            return literal(last)
        case .lineBreak:
            let crlf = Syntax.concatenation([.set(.scalar(0x0D)), .set(.scalar(0x0A))])
            return .alternation([crlf, .set(ScalarClass(ranges: ScalarClass.lineTerminators))])
        }
    }

    /// Parses the escape whose backslash is at `start`; `position` is just past the backslash.
    private mutating func parseEscape(escapeAt start: Int, inBracket: Bool) throws(PatternError) -> Escape {
        guard let scalar = peek else {
            throw error("The pattern ends with a lone backslash; write \\\\ for a literal backslash.", at: start)
        }
        position += 1
        switch scalar {
        case "1"..."9":
            throw error("Backreferences (\\\(scalar)) are not supported: they cannot be matched in linear time.", at: start, kind: .unsupported)
        case "k":
            throw error("Named backreferences (\\k<name>) are not supported: they cannot be matched in linear time.", at: start, kind: .unsupported)
        case "0":
            var value: UInt32 = 0
            var count = 0
            // As ICU: a digit that would take the value past \0377 is a literal after the escape.
            while count < 3, let next = peek, let digit = Self.digitValue(next, radix: 8), value * 8 + UInt32(digit) <= 0o377 {
                value = value * 8 + UInt32(digit)
                position += 1
                count += 1
            }
            guard count > 0 else {
                throw error("\\0 must be followed by one to three octal digits, as in \\0101.", at: start)
            }
            return .scalar(value)
        case "a": return .scalar(0x07)
        case "e": return .scalar(0x1B)
        case "f": return .scalar(0x0C)
        case "n": return .scalar(0x0A)
        case "r": return .scalar(0x0D)
        case "t": return .scalar(0x09)
        case "c":
            guard let next = peek, next.isASCII else {
                throw error("\\c must be followed by an ASCII letter, as in \\cA.", at: start)
            }
            position += 1
            return .scalar(next.value & 0x1F)
        case "d": return .set(ScalarClass(properties: [.categories(GeneralCategoryMask.decimalNumber, negated: false)]))
        case "D": return .set(ScalarClass(properties: [.categories(GeneralCategoryMask.decimalNumber, negated: true)]))
        case "w": return .set(ScalarClass(properties: [.word(negated: false)]))
        case "W": return .set(ScalarClass(properties: [.word(negated: true)]))
        case "s": return .set(ScalarClass(properties: [.whitespace(negated: false)]))
        case "S": return .set(ScalarClass(properties: [.whitespace(negated: true)]))
        case "h": return .set(ScalarClass(properties: [.horizontalSpace(negated: false)]))
        case "H": return .set(ScalarClass(properties: [.horizontalSpace(negated: true)]))
        case "v": return .set(ScalarClass(properties: [.verticalSpace(negated: false)]))
        case "V": return .set(ScalarClass(properties: [.verticalSpace(negated: true)]))
        case "p", "P":
            return .set(ScalarClass(properties: [try parseProperty(escapeAt: start, negated: scalar == "P")]))
        case "b", "B", "A", "G", "z", "Z":
            if inBracket {
                throw error("\\\(scalar) is an assertion and cannot appear inside [...].", at: start)
            }
            switch scalar {
            case "b": return .assertion(.wordBoundary)
            case "B": return .assertion(.notWordBoundary)
            case "A", "G": return .assertion(.start)
            case "z": return .assertion(.end)
            default: return .assertion(.endBeforeFinalTerminator)
            }
        case "R":
            if inBracket {
                throw error("\\R matches a sequence and cannot appear inside [...]; list the line terminators instead.", at: start)
            }
            return .lineBreak
        case "x":
            if peek == "{" {
                position += 1
                let value = try parseHex(escapeAt: start, minimumDigits: 1, maximumDigits: 6)
                guard peek == "}" else {
                    throw error("Malformed \\x{...}: write one to six hex digits and '}'.", at: start)
                }
                position += 1
                return .scalar(try validScalar(value, escapeAt: start))
            }
            return .scalar(try parseHex(escapeAt: start, minimumDigits: 1, maximumDigits: 2))
        case "u":
            return .scalar(try validScalar(try parseHex(escapeAt: start, minimumDigits: 4, maximumDigits: 4), escapeAt: start))
        case "U":
            return .scalar(try validScalar(try parseHex(escapeAt: start, minimumDigits: 8, maximumDigits: 8), escapeAt: start))
        case "N":
            throw error("Named characters (\\N{...}) are not supported; write the character or \\x{hex} instead.", at: start, kind: .unsupported)
        case "X":
            throw error("Grapheme clusters (\\X) are not supported; matching works on Unicode scalars.", at: start, kind: .unsupported)
        case "Q":
            var values: [UInt32] = []
            while position < scalars.count {
                if scalars[position] == "\\", position + 1 < scalars.count, scalars[position + 1] == "E" {
                    position += 2
                    return .sequence(values)
                }
                values.append(scalars[position].value)
                position += 1
            }
            return .sequence(values)
        case "E":
            return .sequence([])
        default:
            return .scalar(scalar.value)
        }
    }

    private mutating func parseProperty(escapeAt start: Int, negated: Bool) throws(PatternError) -> ScalarProperty {
        guard peek == "{" else {
            throw error("Write properties with braces, as in \\p{L}.", at: start)
        }
        position += 1
        var name = ""
        while let scalar = peek, scalar != "}" {
            name.unicodeScalars.append(scalar)
            position += 1
        }
        guard peek == "}" else {
            throw error("Malformed \\p{...}: add '}'.", at: start)
        }
        position += 1
        let key = String(name.lowercased().filter { $0 != "_" && $0 != "-" && $0 != " " })
        switch key {
        case "alphabetic", "alpha": return .alphabetic(negated: negated)
        case "whitespace", "space": return .whitespace(negated: negated)
        case "any": return .any(negated: negated)
        default:
            guard let mask = GeneralCategoryMask.named(name) else {
                throw error("Unknown property \\p{\(name)}; use a general category such as L, Lu, Ll, N, Nd, P, S or Z, or Alphabetic, White_Space, Any.", at: start)
            }
            return .categories(mask, negated: negated)
        }
    }

    private mutating func parseHex(escapeAt start: Int, minimumDigits: Int, maximumDigits: Int) throws(PatternError) -> UInt32 {
        var value: UInt32 = 0
        var count = 0
        while count < maximumDigits, let scalar = peek, let digit = Self.digitValue(scalar, radix: 16) {
            value = value * 16 + UInt32(digit)
            position += 1
            count += 1
        }
        guard count >= minimumDigits else {
            throw error("Malformed hexadecimal escape: expected \(minimumDigits == maximumDigits ? "exactly \(minimumDigits)" : "at least \(minimumDigits)") hex digit(s).", at: start)
        }
        return value
    }

    private func validScalar(_ value: UInt32, escapeAt start: Int) throws(PatternError) -> UInt32 {
        guard Unicode.Scalar(value) != nil else {
            throw error("Escape names U+\(String(value, radix: 16, uppercase: true)), which is not a Unicode scalar.", at: start)
        }
        return value
    }

    // MARK: Bracket expressions

    private mutating func parseBracket(openedAt start: Int) throws(PatternError) -> ScalarClass {
        var set = ScalarClass()
        if peek == "^" {
            set.negated = true
            position += 1
        }
        // ICU reads [:digit:] (single brackets) as the POSIX class, not as the scalars ':', 'd', ...;
        // accepting it would match something else entirely.
        if peek == ":", let close = scalars[position...].firstIndex(of: "]"), close > position + 1, scalars[close - 1] == ":" {
            throw error("POSIX classes ([:alpha:], [[:alpha:]]) are not supported; use \\p{Alpha}-style properties or list the members.",
                        at: start, kind: .unsupported)
        }
        var first = true
        while true {
            guard let scalar = peek else {
                throw error("Unterminated bracket expression: add ']'.", at: start)
            }
            let itemStart = position
            if scalar == "]" && !first {
                position += 1
                break
            }
            first = false
            if scalar == "[" {
                throw error("Nested bracket expressions and POSIX classes ([[a]], [[:alpha:]]) are not supported; list the members in one [...].", at: itemStart, kind: .unsupported)
            }
            if scalar == "-", position + 1 < scalars.count, scalars[position + 1] == "-" {
                throw error("Set difference (--) inside [...] is not supported; escape a literal '-' as \\-.", at: itemStart, kind: .unsupported)
            }
            if scalar == "&", position + 1 < scalars.count, scalars[position + 1] == "&" {
                throw error("Set intersection (&&) inside [...] is not supported; list the members instead.", at: itemStart, kind: .unsupported)
            }
            position += 1
            let low: UInt32
            if scalar == "\\" {
                switch try parseEscape(escapeAt: itemStart, inBracket: true) {
                case .scalar(let value):
                    low = value
                case .set(let inner):
                    set.add(inner)
                    continue
                case .sequence(let values):
                    for value in values { set.add(value...value) }
                    continue
                case .assertion, .lineBreak:
                    throw error("This escape cannot appear inside [...].", at: itemStart)
                }
            } else {
                low = scalar.value
            }
            guard peek == "-", position + 1 < scalars.count, scalars[position + 1] != "]" else {
                set.add(low...low)
                continue
            }
            let dash = position
            position += 1
            let highStart = position
            var high = scalars[position].value
            position += 1
            if scalars[highStart] == "[" {
                throw error("Nested bracket expressions are not supported; list the members in one [...].", at: highStart, kind: .unsupported)
            }
            if scalars[highStart] == "\\" {
                guard case .scalar(let value) = try parseEscape(escapeAt: highStart, inBracket: true) else {
                    throw error("A range must end with a single character, not a class escape.", at: highStart)
                }
                high = value
            }
            guard low <= high else {
                throw error("Range out of order in [...]: the character before '-' must not come after the one following it.", at: dash)
            }
            set.add(low...high)
        }
        set.normalize()
        if flags.caseInsensitive { set.ignoreCase() }
        return set
    }

    // MARK: Helpers

    private var peek: Unicode.Scalar? {
        position < scalars.count ? scalars[position] : nil
    }

    private func literal(_ value: UInt32) -> Syntax {
        var set = ScalarClass.scalar(value)
        if flags.caseInsensitive { set.ignoreCase() }
        return .set(set)
    }

    private static func digitValue(_ scalar: Unicode.Scalar, radix: Int) -> Int? {
        guard scalar.isASCII, let digit = Int(String(Character(scalar)), radix: radix) else { return nil }
        return digit
    }

    /// An error at a scalar offset, reported in characters as `PatternError` promises.
    private func error(_ message: String, at scalarOffset: Int, kind: PatternError.Kind = .syntax) -> PatternError {
        let prefix = scalars[..<min(scalarOffset, scalars.count)]
        var view = String.UnicodeScalarView()
        view.append(contentsOf: prefix)
        return PatternError(offset: String(view).count, message: message, kind: kind)
    }
}
