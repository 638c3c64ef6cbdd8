extension FormDefinition {
    /// The same form using only the five Formworks types (`?profile=formworks`; docs/engine.md, "The
    /// formworks profile"), so a Formworks client decodes it: extension types become `text` with a
    /// regex hint, sections are flattened, group members get key-path ids (`address.line1`,
    /// `kids[0].name`) and a repeat is shown `min` times (at least once). Conditions cannot be
    /// expressed, so conditional inputs are served as optional; the server still applies the full
    /// rules to what comes back. `file` inputs are left out: Formworks has no file component, and the
    /// form's `description` says which were left out, for the person filling it in. Serve it only
    /// when ``formworksProfileRefusal`` is nil. Its texts are plain strings in `language` (one of
    /// ``languages``; ``defaultLanguage`` when nil or where a text has none in it).
    public func formworksProfile(language: String? = nil) -> JSONValue {
        let pick = TextLanguages(language: language ?? defaultLanguage, defaultLanguage: defaultLanguage)
        var out = JSONObject()
        out.append("id", top["id"] ?? .string(id ?? ""))
        out.append("responseFormat", top["responseFormat"] ?? "long")
        out.append("title", .string(pick(top["title"]) ?? title))
        var components: [JSONValue] = []
        var dropped: [String] = []
        Self.flatten(nodes, prefix: "", titlePrefix: "", conditional: false, pick: pick, into: &components, dropped: &dropped)
        let description = pick(top["description"])
        if !dropped.isEmpty {
            let note = pick(.profileFiles, ["inputs": dropped.joined(separator: ", ")])
            out.append("description", .string(description.map { $0 + "\n\n" + note } ?? note))
        } else if let description {
            out.append("description", .string(description))
        }
        if let style = top["style"] { out.append("style", style) }
        out.append("components", .array(components))
        return .object(out)
    }

    private static func flatten(_ nodes: [FormNode], prefix: String, titlePrefix: String, conditional: Bool, pick: TextLanguages,
                                into components: inout [JSONValue], dropped: inout [String]) {
        for node in nodes {
            let hidden = conditional || node.visibleWhen != nil
            switch node.kind {
            case .section(let children):
                flatten(children, prefix: prefix, titlePrefix: titlePrefix, conditional: hidden, pick: pick, into: &components, dropped: &dropped)
            case .input(let spec) where spec.type == .file:
                let title = pick(node.source["title"]) ?? ""
                dropped.append(titlePrefix + (title.isEmpty ? spec.id : title))
            case .input(let spec):
                // A computed or sometimes disabled input is never required of a profile client:
                // what it sends there may be ignored.
                let optional = hidden || spec.formulaIndex != nil || node.enabledWhen != nil
                components.append(component(spec, node.source, id: prefix + spec.id, titlePrefix: titlePrefix, conditional: optional, pick: pick))
            case .group(let group):
                let title = pick(node.source["title"]) ?? ""
                guard let bounds = group.repeatBounds else {
                    flatten(group.children, prefix: prefix + group.id + ".",
                            titlePrefix: title.isEmpty ? titlePrefix : titlePrefix + title + ": ",
                            conditional: hidden, pick: pick, into: &components, dropped: &dropped)
                    continue
                }
                for i in 0..<max(bounds.min, 1) {
                    let itemTitle = (title.isEmpty ? group.id : title) + " \(i + 1): "
                    flatten(group.children, prefix: prefix + group.id + "[\(i)].", titlePrefix: titlePrefix + itemTitle,
                            conditional: hidden || i >= bounds.min, pick: pick, into: &components, dropped: &dropped)
                }
            }
        }
    }

    /// The key path in the profile of the first `file` input that it would serve as required (as
    /// `flatten` decides), which no profile client could answer; nil when there is none.
    static func requiredFileInput(_ nodes: [FormNode], prefix: String, conditional: Bool) -> String? {
        for node in nodes {
            let hidden = conditional || node.visibleWhen != nil
            let found: String?
            switch node.kind {
            case .section(let children):
                found = requiredFileInput(children, prefix: prefix, conditional: hidden)
            case .input(let spec):
                found = spec.type == .file && spec.required && !hidden ? prefix + spec.id : nil
            case .group(let group):
                // Only the entries up to a repeat's `min` are required: with min 0 the one entry shown may stay blank.
                let optional = group.repeatBounds.map { $0.min == 0 } ?? false
                let step = group.repeatBounds == nil ? "." : "[0]."
                found = requiredFileInput(group.children, prefix: prefix + group.id + step, conditional: hidden || optional)
            }
            if let found { return found }
        }
        return nil
    }

    /// The bytes one input's component takes in the served profile without the prefixes of the
    /// groups around it, as the serializer writes them (escapes included), for the size check before
    /// it is written. (`conditional` turns `required` to false, one byte longer than true, and gives
    /// a switch the longer of its two hints, so this is an upper bound.)
    static func componentBytes(_ spec: InputSpec, _ source: JSONObject, pick: TextLanguages) -> Int {
        component(spec, source, id: spec.id, titlePrefix: "", conditional: true, pick: pick).serialized().count + 2
    }

    /// The bytes `text` takes inside a serialized JSON string (escapes included).
    static func escapedBytes(_ text: String) -> Int {
        JSONValue.string(text).serialized().count - 2
    }

    private static func component(_ spec: InputSpec, _ source: JSONObject, id: String, titlePrefix: String,
                                  conditional: Bool, pick: TextLanguages) -> JSONValue {
        var props = JSONObject()
        props.append("id", .string(id))
        props.append("title", .string(titlePrefix + (pick(source["title"]) ?? "")))
        var description = pick(source["description"]) ?? ""
        var placeholder = pick(source["placeholder"])
        var regex = spec.pattern?.source
        let type: String
        if spec.type.isFormworks {
            type = spec.type.rawValue
        } else {
            type = "text"
            let hint: (regex: String?, text: String?) = switch spec.type {
            case .integer, .count: (#"[+-]?[0-9]+"#, pick(.profileInteger))
            case .decimal: (decimalRegex(spec.maxDecimalPlaces), pick(.profileDecimal))
            case .date: (#"[0-9]{4}-[0-9]{2}-[0-9]{2}"#, pick(.profileDate))
            case .select: (selectRegex(spec), pick(spec.multiple ? .profileSelectMany : .profileSelectOne,
                                                   ["options": spec.options.joined(separator: ", ")]))
            // A required switch must be on: "false" would only come back refused.
            case .switch: spec.required && !conditional ? ("true", pick(.profileSwitchOn)) : ("(true|false)", pick(.profileSwitch))
            case .usphone: (FormworksRegex.usphone, nil)
            case .usstate: ("[A-Za-z][A-Za-z ]{1,19}", pick(.profileUSState))
            default: (nil, nil)
            }
            regex = regex ?? hint.regex
            if let text = hint.text, description.isEmpty { description = text }
            if spec.type == .date, placeholder == nil { placeholder = "YYYY-MM-DD" }
            if spec.type == .usphone, placeholder == nil { placeholder = "555-123-4567" }
        }
        // Lengths as a hint only where the type has no rule of its own: a regex replaces a Formworks
        // client's email, phone and numerical rules. Counts past 1000 (more than FormRegex, and so
        // `formhouse check`, takes) are left to the server.
        if regex == nil, spec.type == .text || spec.type == .multiline || spec.type == .password,
           let range = lengthRange(min: spec.minLength, max: spec.maxLength) {
            regex = "[\\s\\S]{\(range)}"
        }
        props.append("description", .string(description))
        props.append("required", .bool(spec.required && !conditional))
        if let placeholder { props.append("placeholder", .string(placeholder)) }
        if let regex { props.append("regex", .string(regex)) }
        var wrapper = JSONObject()
        wrapper.append(type, .object(props))
        return .object(wrapper)
    }

    /// The bounds of a length hint (`2,10`, `2,`), or nil when there is nothing to hint.
    private static func lengthRange(min: Int?, max: Int?) -> String? {
        let low = min.flatMap { $0 <= 1000 ? $0 : nil } ?? 0
        let high = max.flatMap { $0 <= 1000 ? $0 : nil }
        guard low > 0 || high != nil else { return nil }
        return "\(low),\(high.map(String.init) ?? "")"
    }

    /// Trailing zeros are not decimal places to the server ("1.50" has one), so the hint allows them.
    private static func decimalRegex(_ places: Int?) -> String {
        switch places {
        case nil: #"[+-]?[0-9]+(\.[0-9]+)?"#
        case 0?: #"[+-]?[0-9]+(\.0+)?"#
        case let n?: #"[+-]?[0-9]+(\.[0-9]{1,\#(n)}0*)?"#
        }
    }

    private static func selectRegex(_ spec: InputSpec) -> String {
        let one = "(" + spec.options.map(escapeRegex).joined(separator: "|") + ")"
        return spec.multiple ? one + "(," + one + ")*" : one
    }

    private static func escapeRegex(_ s: String) -> String {
        var out = ""
        for c in s {
            if "\\.^$|?*+()[]{}".contains(c) { out.append("\\") }
            out.append(c)
        }
        return out
    }
}
