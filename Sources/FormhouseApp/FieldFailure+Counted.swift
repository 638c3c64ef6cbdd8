import FormEngine
import FormStore

extension FieldFailure {
    /// What a form's statistics keep of a refusal's errors: each input and code once, repeat items
    /// folded together (`items[].qty`), and every unknown key as one `*`, since a client chooses those
    /// names and each distinct name would be a counter of its own.
    static func counted(_ errors: [FieldError]) -> [FieldFailure] {
        var seen = Set<FieldFailure>()
        var failures: [FieldFailure] = []
        for error in errors {
            let field = error.code == .unknown ? "*" : foldingRepeatIndexes(error.field)
            let failure = FieldFailure(field: field, code: error.code.rawValue)
            if seen.insert(failure).inserted { failures.append(failure) }
        }
        return failures
    }

    /// `items[3].qty` → `items[].qty`.
    private static func foldingRepeatIndexes(_ path: String) -> String {
        guard path.utf8.contains(UInt8(ascii: "[")) else { return path }
        var folded = ""
        var inIndex = false
        for character in path {
            if character == "[" {
                inIndex = true
                folded.append("[")
            } else if character == "]" {
                inIndex = false
                folded.append("]")
            } else if !inIndex {
                folded.append(character)
            }
        }
        return folded
    }
}
