/// hyperoslo/Form's `formula` as a Formhouse `formula` expression.
///
/// hyperoslo/Form has two kinds: field ids separated by spaces (`first_name last_name`), which
/// join the values with a space, and arithmetic over field ids, written with or without `$`
/// (`$base_salary + $bonus`, `$tickets[:index].quantity * $tickets[:index].price`).
extension HyperosloConverter {
    private enum Token: Equatable {
        case field(String)
        case number(String)
        case symbol(Character)
    }

    mutating func formula(of field: HyperosloField, as type: String) -> String? {
        guard let value = field.object["formula"] else { return nil }
        let at = Self.pointer(field.pointer, "formula")
        guard let text = value.stringValue else {
            problem(at, .invalidType, "\"formula\" must be a string.")
            return nil
        }
        guard ["text", "integer", "decimal"].contains(type) else {
            problem(at, "A formula on a \(field.type ?? "") field is not carried over: Formhouse computes text, integer (number) and decimal (float) inputs only.")
            return nil
        }
        guard let tokens = tokens(of: text, at: at) else { return nil }
        var parts: [String] = []
        for token in tokens {
            switch token {
            case .field(let id):
                guard let name = reference(id, from: field, at: at) else { return nil }
                parts.append(name)
            case .number(let digits): parts.append(digits)
            case .symbol(let symbol): parts.append(String(symbol))
            }
        }
        let joinsText = !tokens.isEmpty && tokens.allSatisfy { if case .field = $0 { true } else { false } }
        if joinsText, tokens.count > 1, type != "text" {
            problem(at, "The formula \"\(text)\" joins values with spaces, which makes text: it is not carried over on a \(field.type ?? "") field. Make the field a text one.")
            return nil
        }
        return parts.joined(separator: joinsText ? #" & " " & "# : " ")
    }

    private mutating func tokens(of text: String, at pointer: String) -> [Token]? {
        var tokens: [Token] = []
        var rest = Substring(text)
        while let first = rest.first {
            if first == " " {
                rest = rest.dropFirst()
            } else if "+-*/()".contains(first) {
                tokens.append(.symbol(first))
                rest = rest.dropFirst()
            } else if first.isASCII, first.isNumber {
                let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
                tokens.append(.number(String(number)))
                rest = rest.dropFirst(number.count)
            } else if first == "$" || Self.isIDCharacter(first) {
                let id = rest.dropFirst(first == "$" ? 1 : 0).prefix(while: Self.isIDCharacter)
                guard !id.isEmpty else { break }
                tokens.append(.field(String(id)))
                rest = rest.dropFirst(id.count + (first == "$" ? 1 : 0))
            } else {
                break
            }
        }
        guard rest.isEmpty else {
            problem(pointer, "The formula \"\(text)\" is not carried over: past \"\(text.dropLast(rest.count))\" it is neither field ids joined by spaces nor arithmetic (+ - * / and parentheses) over field ids and numbers.")
            return nil
        }
        return tokens
    }

    private static func isIDCharacter(_ c: Character) -> Bool {
        c.isLetter || c.isNumber || "_-.[]:".contains(c)
    }

    /// The Formhouse key path of the field `id` as `field`'s formula names it: relative to the item
    /// inside the same dynamic section.
    private mutating func reference(_ id: String, from field: HyperosloField, at pointer: String) -> String? {
        guard let source = fields[id] else {
            problem(pointer, .unknownField, "The formula names \"\(id)\", which is no field of the form.")
            return nil
        }
        guard source.scope == nil || source.scope == field.scope else {
            problem(pointer, "The formula reads \"\(id)\", a field of each item of the dynamic section \"\(source.scope ?? "")\", from outside it: not carried over (a total over the items is written sum(\(source.scope ?? "")[].\(source.name)) in Formhouse).")
            return nil
        }
        return Self.formulaName(source.name)
    }

    /// An id as a Formhouse formula names it: bare when it is a formula name, else in braces, so that
    /// `first-name` is read as one input and not as a subtraction.
    private static func formulaName(_ id: String) -> String {
        let isName = id.first.map { $0 == "_" || ($0.isASCII && $0.isLetter) } == true
            && id.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
        return isName ? id : "{\(id)}"
    }
}
