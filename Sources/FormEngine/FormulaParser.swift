import Foundation

/// Why a formula does not parse: a message and the 1-based character where it went wrong.
struct FormulaSyntaxError: Error {
    var position: Int
    var message: String
}

/// A recursive-descent parser for the grammar in docs/engine.md ("Computed inputs"). Nesting
/// (parentheses, calls, unary minus) is bounded by `maximumDepth` and the text by `maximumLength`,
/// so a hostile definition is refused before it can recurse deeply.
struct FormulaParser {
    /// The most characters a formula may have.
    static let maximumLength = 1_000
    /// The most parentheses, calls and unary minuses that may nest.
    static let maximumDepth = 32

    private let chars: [Character]
    private var index = 0
    private var depth = 0

    private init(_ text: String) {
        chars = Array(text)
    }

    /// Parses a whole formula.
    static func parse(_ text: String) throws(FormulaSyntaxError) -> FormulaSyntax {
        var parser = FormulaParser(text)
        guard parser.chars.count <= maximumLength else {
            throw FormulaSyntaxError(position: maximumLength + 1, message: "a formula may have at most \(maximumLength) characters")
        }
        let syntax = try parser.formula()
        parser.skipSpaces()
        guard parser.index == parser.chars.count else { throw parser.error("unexpected \"\(parser.chars[parser.index])\"") }
        return syntax
    }

    private func error(_ message: String, at position: Int? = nil) -> FormulaSyntaxError {
        FormulaSyntaxError(position: (position ?? index) + 1, message: message)
    }

    private mutating func skipSpaces() {
        while index < chars.count, chars[index].isWhitespace { index += 1 }
    }

    /// The next character after spaces, without taking it.
    private mutating func peek() -> Character? {
        skipSpaces()
        return index < chars.count ? chars[index] : nil
    }

    private mutating func take(_ text: String) -> Bool {
        skipSpaces()
        let wanted = Array(text)
        guard index + wanted.count <= chars.count, Array(chars[index..<index + wanted.count]) == wanted else { return false }
        index += wanted.count
        return true
    }

    private mutating func nested<T>(_ body: (inout Self) throws(FormulaSyntaxError) -> T) throws(FormulaSyntaxError) -> T {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) levels deep") }
        return try body(&self)
    }

    // MARK: Grammar

    private mutating func formula() throws(FormulaSyntaxError) -> FormulaSyntax {
        let left = try join()
        skipSpaces()
        let position = index
        for op in [FormulaOperator.lessOrEqual, .greaterOrEqual, .notEqual, .equal, .less, .greater] where take(op.rawValue) {
            let right = try join()
            skipSpaces()
            if index < chars.count, "=<>".contains(chars[index]) {
                throw error("comparisons do not chain; use if() or parentheses")
            }
            return .binary(op, left, right, position: position + 1)
        }
        return left
    }

    private mutating func join() throws(FormulaSyntaxError) -> FormulaSyntax {
        try leftAssociative(["&": .join]) { parser throws(FormulaSyntaxError) in try parser.additive() }
    }

    private mutating func additive() throws(FormulaSyntaxError) -> FormulaSyntax {
        try leftAssociative(["+": .add, "-": .subtract]) { parser throws(FormulaSyntaxError) in try parser.term() }
    }

    private mutating func term() throws(FormulaSyntaxError) -> FormulaSyntax {
        try leftAssociative(["*": .multiply, "/": .divide]) { parser throws(FormulaSyntaxError) in try parser.unary() }
    }

    /// One precedence level of left-associative operators (`a - b - c` is `(a - b) - c`), read by
    /// a loop into one flat chain.
    private mutating func leftAssociative(
        _ operators: [Character: FormulaOperator], _ operand: (inout Self) throws(FormulaSyntaxError) -> FormulaSyntax
    ) throws(FormulaSyntaxError) -> FormulaSyntax {
        let first = try operand(&self)
        var links: [(op: FormulaOperator, operand: FormulaSyntax, position: Int)] = []
        while let c = peek(), let op = operators[c] {
            let position = index
            index += 1
            links.append((op, try operand(&self), position + 1))
        }
        return links.isEmpty ? first : .chain(first, links)
    }

    private mutating func unary() throws(FormulaSyntaxError) -> FormulaSyntax {
        guard peek() == "-" else { return try primary() }
        let position = index
        index += 1
        return try nested { parser throws(FormulaSyntaxError) in .negate(try parser.unary(), position: position + 1) }
    }

    private mutating func primary() throws(FormulaSyntaxError) -> FormulaSyntax {
        guard let c = peek() else { throw error("the formula ends where a value is expected") }
        if c == "(" {
            index += 1
            let inner = try nested { parser throws(FormulaSyntaxError) in try parser.formula() }
            guard take(")") else { throw error("expected \")\"") }
            return inner
        }
        if c == "\"" { return .text(try string()) }
        if c.isASCII, c.isNumber { return .number(try number()) }
        if c == "{" || c == "_" || (c.isASCII && c.isLetter) { return try reference() }
        throw error("unexpected \"\(c)\"; expected a number, \"text\", a key path, a function or \"(\"")
    }

    private mutating func number() throws(FormulaSyntaxError) -> Decimal {
        let start = index
        while index < chars.count, chars[index].isASCII, chars[index].isNumber { index += 1 }
        if index < chars.count, chars[index] == "." {
            index += 1
            let fractionStart = index
            while index < chars.count, chars[index].isASCII, chars[index].isNumber { index += 1 }
            guard index > fractionStart else { throw error("expected digits after the decimal point") }
        }
        let text = String(chars[start..<index])
        guard let value = DecimalText(text).flatMap(FormulaNumber.read) else {
            throw error("the number \(text) is too large: numbers stay below 10^30", at: start)
        }
        return value
    }

    private mutating func string() throws(FormulaSyntaxError) -> String {
        let start = index
        index += 1
        var out = ""
        while index < chars.count {
            let c = chars[index]
            index += 1
            switch c {
            case "\"": return out
            case "\\":
                guard index < chars.count else { break }
                let escaped = chars[index]
                index += 1
                switch escaped {
                case "\"": out.append("\"")
                case "\\": out.append("\\")
                case "n": out.append("\n")
                case "t": out.append("\t")
                default: throw error("unknown escape \"\\\(escaped)\"; use \\\", \\\\, \\n or \\t", at: index - 2)
                }
            default: out.append(c)
            }
        }
        throw error("the text has no closing quote", at: start)
    }

    /// A key path, a repeat's column, or a function call (a name followed by `(`).
    private mutating func reference() throws(FormulaSyntaxError) -> FormulaSyntax {
        let position = index + 1
        var segments: [String] = []
        var column: Int?
        while true {
            let braced = chars[index] == "{"
            let segment = try segment()
            if segments.isEmpty, !braced, peek() == "(" {
                guard let function = FormulaFunction(rawValue: segment) else {
                    throw error("unknown function \"\(segment)\"; use sum, min, max, round, if or concat", at: position - 1)
                }
                index += 1
                return try nested { parser throws(FormulaSyntaxError) in try parser.call(function, at: position) }
            }
            segments.append(segment)
            if index + 1 < chars.count, chars[index] == "[", chars[index + 1] == "]" {
                guard column == nil else { throw error("a key path may name one repeat's column, with one \"[]\"") }
                column = segments.count
                index += 2
            }
            guard index < chars.count, chars[index] == "." else { break }
            index += 1
            guard index < chars.count, chars[index] == "{" || chars[index] == "_" || (chars[index].isASCII && chars[index].isLetter) else {
                throw error("expected an id after \".\"")
            }
        }
        guard let column else { return .path(segments, position: position) }
        guard column < segments.count else { throw error("name an input of the repeat after \"[]\", like items[].total", at: position - 1) }
        return .column(repeat: Array(segments[..<column]), item: Array(segments[column...]), position: position)
    }

    /// One id: letters, digits and `_` (starting with a letter or `_`), or any id in braces, `{text-name}`.
    private mutating func segment() throws(FormulaSyntaxError) -> String {
        let start = index
        if chars[index] == "{" {
            index += 1
            while index < chars.count, chars[index] != "}" { index += 1 }
            guard index < chars.count, index > start + 1 else { throw error("an id in braces needs a closing \"}\"", at: start) }
            index += 1
            return String(chars[start + 1..<index - 1])
        }
        while index < chars.count, chars[index] == "_" || (chars[index].isASCII && (chars[index].isLetter || chars[index].isNumber)) {
            index += 1
        }
        return String(chars[start..<index])
    }

    private mutating func call(_ function: FormulaFunction, at position: Int) throws(FormulaSyntaxError) -> FormulaSyntax {
        var arguments: [FormulaSyntax] = []
        if take(")") { return .call(function, arguments, position: position) }
        repeat {
            arguments.append(try formula())
        } while take(",")
        guard take(")") else { throw error("expected \",\" or \")\" in the arguments of \(function.rawValue)()") }
        return .call(function, arguments, position: position)
    }
}
