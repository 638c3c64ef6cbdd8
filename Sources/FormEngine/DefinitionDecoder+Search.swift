import FormRegex

extension DefinitionDecoder {
    /// `search`: a pattern that must occur somewhere in the value, ignoring letter case, as
    /// hyperoslo/Form's `format` validation does, where `regex` must match the whole value with
    /// letter case. It is compiled to the whole-string pattern `(?i)[\s\S]*(?:search)[\s\S]*`, so it
    /// checks and reaches the formworks profile exactly as a `regex` does.
    mutating func decodeSearch(_ props: JSONObject, of type: InputType, into spec: inout InputSpec, at pointer: String) {
        guard let value = props["search"] else { return }
        let key = pointer + "/search"
        guard type.isText else {
            problem(key, .notApplicable, "\"search\" does not apply to a \"\(type.rawValue)\" input.")
            return
        }
        guard let source = value.stringValue else {
            problem(key, .invalidType, "\"search\" must be a string.")
            return
        }
        if props["regex"] != nil {
            problem(key, .badValue, "Give \"regex\" (the whole value must match) or \"search\" (a match anywhere in it), not both.")
            return
        }
        guard !source.isEmpty else { return }
        do {
            // Compiled alone first, so that an error's offset is in the text the admin wrote and an
            // unbalanced ")" cannot close the wrapping group.
            _ = try Pattern(source, budget: regexBudget)
            spec.pattern = try compile(Self.searchPattern(source))
        } catch {
            problem(key, .badRegex, "The search pattern does not compile (at \(error.offset)): \(Self.sentence(error)).")
        }
    }

    /// The whole-string pattern that holds when `source` matches anywhere, in any letter case.
    static func searchPattern(_ source: String) -> String {
        #"(?i)[\s\S]*(?:"# + source + #")[\s\S]*"#
    }
}
