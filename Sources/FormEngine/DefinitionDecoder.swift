import FormRegex

/// Turns an uploaded definition into the typed tree, collecting every problem on the way.
struct DefinitionDecoder {
    var problems: [DefinitionProblem] = []
    /// Whether checks added after definitions were first stored apply (an upload), or are left out
    /// so that a stored definition is still served (a read back).
    var newChecks = true
    /// Whether any input is a `file` input, so that forms without one skip the walks for them.
    private(set) var hasFileInputs = false
    /// Whether any regex may cost more than a table lookup per scalar (``Pattern/mayBeSlow``).
    var hasSlowPatterns = false
    private var nextOrder = 0
    /// Shared by all of the definition's regexes, so that many of them cannot together cost more
    /// compile time and memory than a few large ones.
    let regexBudget = CompileBudget()
    /// The form's `defaultLanguage`, which every text map must hold (see `DefinitionDecoder+Texts.swift`).
    var defaultLanguage = "en"
    /// The languages of the form's text maps, as first spelled, and their lowercased tags.
    var languages: [String] = []
    var languageKeys = Set<String>()

    mutating func problem(_ pointer: String, _ code: DefinitionProblem.Code, _ message: String) {
        problems.append(DefinitionProblem(pointer: pointer, code: code, message: message))
    }

    /// A regex of the definition, within the definition's shared budget; a form with a slow one is
    /// marked so (``FormDefinition/hasSlowPatterns``).
    mutating func compile(_ source: String) throws(PatternError) -> Pattern {
        let pattern = try Pattern(source, budget: regexBudget)
        if pattern.mayBeSlow { hasSlowPatterns = true }
        return pattern
    }

    /// A compile error's message without its closing period, to stand inside a sentence.
    static func sentence(_ error: PatternError) -> String {
        error.message.hasSuffix(".") ? String(error.message.dropLast()) : error.message
    }

    static func escape(_ token: String) -> String {
        guard token.contains("~") || token.contains("/") else { return token }
        return token.replacingAll("~", with: "~0").replacingAll("/", with: "~1")
    }

    // MARK: Components

    /// How many components were decoded (the slots of a validation's value table).
    var componentCount: Int { nextOrder }

    mutating func decodeComponents(_ value: JSONValue?, at pointer: String) -> [FormNode] {
        guard let value else {
            problem(pointer, .missing, "\"components\" is required: an array of components.")
            return []
        }
        guard let items = value.arrayValue else {
            problem(pointer, .invalidType, "\"components\" must be an array, not \(value.typeName).")
            return []
        }
        var nodes: [FormNode] = []
        for (i, item) in items.enumerated() {
            if let node = decodeComponent(item, at: "\(pointer)/\(i)") { nodes.append(node) }
        }
        return nodes
    }

    private mutating func decodeComponent(_ value: JSONValue, at pointer: String) -> FormNode? {
        guard let wrapper = value.objectValue else {
            problem(pointer, .componentKeys, "A component must be an object with exactly one key, its type; found \(value.typeName).")
            return nil
        }
        guard wrapper.count == 1 else {
            let found = wrapper.isEmpty ? "none" : wrapper.keys.map { "\"\($0)\"" }.joined(separator: ", ")
            problem(pointer, .componentKeys, "A component must be an object with exactly one key, its type; found \(wrapper.count) (\(found)).")
            return nil
        }
        let typeKey = wrapper.members[0].key
        let propsPointer = "\(pointer)/\(Self.escape(typeKey))"
        guard let props = wrapper.members[0].value.objectValue else {
            problem(propsPointer, .invalidType, "The properties of a \"\(typeKey)\" component must be an object.")
            return nil
        }
        let order = nextOrder
        nextOrder += 1
        let kind: FormNode.Kind
        switch typeKey {
        case "section":
            checkTexts(props, ["title", "description"], at: propsPointer)
            notApplicable(props, inputOnly + ["id", "repeat"], to: "a \"section\"", at: propsPointer)
            kind = .section(children: decodeComponents(props["components"], at: propsPointer + "/components"))
        case "group":
            let title = checkedTitle(props, at: propsPointer)
            checkTexts(props, ["description"], at: propsPointer)
            notApplicable(props, inputOnly, to: "a \"group\"", at: propsPointer)
            let id = decodeID(props, at: propsPointer)
            let bounds = decodeRepeat(props["repeat"], at: propsPointer + "/repeat")
            let children = decodeComponents(props["components"], at: propsPointer + "/components")
            kind = .group(GroupSpec(id: id ?? "", title: title, repeatBounds: bounds, children: children))
        default:
            guard let type = InputType(rawValue: typeKey) else {
                let known = InputType.allCases.map(\.rawValue).joined(separator: ", ")
                problem(pointer + "/" + Self.escape(typeKey), .unknownType,
                        "Unknown component type \"\(typeKey)\"; use one of \(known), section, group.")
                return nil
            }
            kind = .input(decodeInput(type, props, at: propsPointer))
        }
        var node = FormNode(kind: kind, visibleWhen: nil, source: props, order: order)
        node.pointer = propsPointer
        return node
    }

    private mutating func decodeID(_ props: JSONObject, at pointer: String) -> String? {
        guard let value = props["id"] else { return nil }
        guard let id = value.stringValue else {
            problem(pointer + "/id", .invalidType, "\"id\" must be a string.")
            return nil
        }
        if id.isEmpty || id.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") || $0 <= 0x20 }) {
            problem(pointer + "/id", .invalidID, "The id \"\(id)\" cannot be used: ids are non-empty and contain no spaces, '.', '[' or ']' (those build key paths).")
            return nil
        }
        return id
    }

    private mutating func decodeRepeat(_ value: JSONValue?, at pointer: String) -> RepeatBounds? {
        guard let value else { return nil }
        guard let object = value.objectValue else {
            problem(pointer, .invalidType, "\"repeat\" must be an object like {\"min\": 0, \"max\": 10}.")
            return nil
        }
        let min = integer(object, "min", at: pointer) ?? 0
        let max = integer(object, "max", at: pointer) ?? 100
        if min < 0 || max < 1 || min > max {
            problem(pointer, .badBounds, "\"repeat\" needs 0 ≤ min ≤ max and max ≥ 1; found min \(min), max \(max).")
            return nil
        }
        return RepeatBounds(min: min, max: max)
    }

    private mutating func integer(_ props: JSONObject, _ key: String, at pointer: String) -> Int? {
        guard let v = props[key] else { return nil }
        guard let n = v.numberValue, n == n.rounded(), n >= 0, n < 1e9 else {
            problem(pointer + "/" + key, .invalidType, "\"\(key)\" must be a whole number ≥ 0.")
            return nil
        }
        return Int(n)
    }

    private mutating func number(_ props: JSONObject, _ key: String, at pointer: String) -> Double? {
        guard let v = props[key] else { return nil }
        guard let n = v.numberValue else {
            problem(pointer + "/" + key, .invalidType, "\"\(key)\" must be a number.")
            return nil
        }
        return n
    }

    private mutating func date(_ props: JSONObject, _ key: String, at pointer: String) -> String? {
        guard let v = props[key] else { return nil }
        guard let s = v.stringValue, ValueRules.isDate(s) else {
            problem(pointer + "/" + key, .badDate, "\"\(key)\" must be a date written YYYY-MM-DD.")
            return nil
        }
        return s
    }

    private mutating func notApplicable(_ props: JSONObject, _ keys: [String], _ type: InputType, at pointer: String) {
        notApplicable(props, keys, to: "a \"\(type.rawValue)\" input", at: pointer)
    }

    private mutating func notApplicable(_ props: JSONObject, _ keys: [String], to what: String, at pointer: String) {
        for key in keys where props[key] != nil {
            problem(pointer + "/" + key, .notApplicable, "\"\(key)\" does not apply to \(what).")
        }
    }

    /// Reads a pair of bounds where they apply to `type`, reporting a `low` above the `high`; where
    /// they do not apply, reports them as such.
    private mutating func bounds<Bound: Comparable>(
        _ props: JSONObject, _ low: String, _ high: String, of type: InputType, applying: Bool, at pointer: String,
        read: (inout Self, JSONObject, String, String) -> Bound?, text: (Bound) -> String, relation: String = "is greater than"
    ) -> (Bound?, Bound?) {
        guard applying else {
            notApplicable(props, [low, high], type, at: pointer)
            return (nil, nil)
        }
        let lo = read(&self, props, low, pointer)
        let hi = read(&self, props, high, pointer)
        if let lo, let hi, lo > hi {
            problem(pointer + "/" + low, .badBounds, "\"\(low)\" (\(text(lo))) \(relation) \"\(high)\" (\(text(hi))).")
        }
        return (lo, hi)
    }

    /// The properties only inputs have: on a section or a group they would be silently ignored.
    private var inputOnly: [String] {
        ["required", "placeholder", "regex", "search", "minLength", "maxLength", "minValue", "maxValue",
         "maxDecimalPlaces", "minDate", "maxDate", "options", "multiple", "messages"] + fileOnly + newInputOnly
    }

    /// The `file` input's own properties. Definitions stored before it existed may carry them as
    /// extras elsewhere, so they are refused there only at upload.
    private var fileOnly: [String] {
        newChecks ? ["accept", "maxSize", "maxFiles"] : []
    }

    /// Input properties added since definitions were first stored, refused on sections and groups
    /// only at upload for the same reason.
    private var newInputOnly: [String] {
        newChecks ? ["sensitive", "updates", "default"] : []
    }

    private mutating func decodeInput(_ type: InputType, _ props: JSONObject, at pointer: String) -> InputSpec {
        let title = checkedTitle(props, at: pointer)
        checkTexts(props, ["description", "placeholder"], at: pointer)
        notApplicable(props, ["repeat", "components"], type, at: pointer)
        var spec = InputSpec(type: type, id: decodeID(props, at: pointer) ?? "", title: title, required: false)
        if let v = props["required"] {
            if let b = v.boolValue { spec.required = b } else {
                problem(pointer + "/required", .invalidType, "\"required\" must be true or false.")
            }
        }
        decodeSensitive(props, into: &spec, at: pointer)
        if let v = props["regex"] {
            if !type.isText {
                problem(pointer + "/regex", .notApplicable, "\"regex\" does not apply to a \"\(type.rawValue)\" input.")
            } else if let source = v.stringValue {
                if !source.isEmpty {
                    do {
                        spec.pattern = try compile(source)
                    } catch {
                        problem(pointer + "/regex", .badRegex, "The regex does not compile (at \(error.offset)): \(Self.sentence(error)).")
                    }
                }
            } else {
                problem(pointer + "/regex", .invalidType, "\"regex\" must be a string.")
            }
        }
        decodeSearch(props, of: type, into: &spec, at: pointer)
        (spec.minLength, spec.maxLength) = bounds(props, "minLength", "maxLength", of: type, applying: type.takesLengths, at: pointer,
                                                  read: { $0.integer($1, $2, at: $3) }, text: { "\($0)" })
        (spec.minValue, spec.maxValue) = bounds(props, "minValue", "maxValue", of: type, applying: type.takesValueBounds, at: pointer,
                                                read: { $0.number($1, $2, at: $3) }, text: JSONValue.numberText)
        if type == .numerical { spec.digitBounds = (spec.minValue.flatMap(DecimalText.init), spec.maxValue.flatMap(DecimalText.init)) }
        if newChecks, type == .integer || type == .count, let lo = spec.minValue, let hi = spec.maxValue,
           lo <= hi, lo.rounded(.up) > hi.rounded(.down) {
            // Whole numbers only: bounds with none between them could never be met.
            problem(pointer + "/minValue", .badBounds,
                    "No whole number lies between \"minValue\" (\(JSONValue.numberText(lo))) and \"maxValue\" (\(JSONValue.numberText(hi))).")
        }
        if type == .decimal {
            spec.maxDecimalPlaces = integer(props, "maxDecimalPlaces", at: pointer)
        } else {
            notApplicable(props, ["maxDecimalPlaces"], type, at: pointer)
        }
        (spec.minDate, spec.maxDate) = bounds(props, "minDate", "maxDate", of: type, applying: type == .date, at: pointer,
                                              read: { $0.date($1, $2, at: $3) }, text: { $0 }, relation: "is after")
        if type == .select {
            if let v = props["multiple"] {
                if let b = v.boolValue { spec.multiple = b } else {
                    problem(pointer + "/multiple", .invalidType, "\"multiple\" must be true or false.")
                }
            }
            decodeOptions(props["options"], into: &spec, at: pointer + "/options")
        } else {
            notApplicable(props, ["options", "multiple"], type, at: pointer)
        }
        if type == .file {
            hasFileInputs = true
            spec.file = decodeFileRules(props, at: pointer)
        } else {
            notApplicable(props, fileOnly, type, at: pointer)
        }
        if let v = props["messages"] {
            if let object = v.objectValue {
                for (key, text) in object.members.map({ ($0.key, $0.value) }) {
                    guard let code = FieldError.Code(rawValue: key) else {
                        problem(pointer + "/messages/" + Self.escape(key), .badValue,
                                "\"\(key)\" is not an error code; use one of \(Self.errorCodes).")
                        continue
                    }
                    if let message = self.text(text, named: key, at: pointer + "/messages/" + Self.escape(key)) { spec.messages[code] = message }
                }
            } else {
                problem(pointer + "/messages", .invalidType, "\"messages\" must be an object of {\"<code>\": \"text\"}.")
            }
        }
        return spec
    }

    /// `sensitive`: true or false, and never false on a `password`, whose value is always sensitive.
    /// A stored definition from before the key existed may hold anything there; it reads as absent.
    private mutating func decodeSensitive(_ props: JSONObject, into spec: inout InputSpec, at pointer: String) {
        spec.sensitive = spec.type == .password
        guard let value = props["sensitive"] else { return }
        guard let flag = value.boolValue else {
            if newChecks { problem(pointer + "/sensitive", .invalidType, "\"sensitive\" must be true or false.") }
            return
        }
        if !flag, spec.type == .password, newChecks {
            problem(pointer + "/sensitive", .badValue,
                    "A \"password\" input is always sensitive: leave \"sensitive\" out or set it to true.")
        }
        spec.sensitive = spec.sensitive || flag
    }

    /// A `file` input's `accept`, `maxSize` and `maxFiles`, with their defaults; its path is set once
    /// the ids are known.
    private mutating func decodeFileRules(_ props: JSONObject, at pointer: String) -> FileInputRules {
        var accept: [String]?
        if let value = props["accept"] {
            if let items = value.arrayValue {
                if items.isEmpty {
                    problem(pointer + "/accept", .badValue, "\"accept\" lists no media type, so no file could be attached; leave it out to accept any type.")
                }
                var types: [String] = []
                for (i, item) in items.enumerated() {
                    guard let text = item.stringValue else {
                        problem("\(pointer)/accept/\(i)", .invalidType, "A media type must be a string, like \"image/png\" or \"image/*\".")
                        continue
                    }
                    guard FileInputRules.isMediaRange(text) else {
                        problem("\(pointer)/accept/\(i)", .badValue,
                                "\"\(text)\" is not a media type: write \"type/subtype\" (\"application/pdf\") or \"type/*\" (\"image/*\"), without parameters.")
                        continue
                    }
                    types.append(text.lowercased())
                }
                accept = types
            } else {
                problem(pointer + "/accept", .invalidType, "\"accept\" must be an array of media types, like [\"image/*\", \"application/pdf\"].")
            }
        }
        let maxSize = wholeNumber(props, "maxSize", in: 1...(1 << 53), unit: "bytes", at: pointer) ?? FileInputRules.defaultMaxSize
        let maxFiles = wholeNumber(props, "maxFiles", in: 1...FileInputRules.maximumFiles, unit: "files", at: pointer) ?? 1
        return FileInputRules(path: "", accept: accept, maxSize: maxSize, maxFiles: maxFiles)
    }

    private mutating func wholeNumber(_ props: JSONObject, _ key: String, in range: ClosedRange<Int>, unit: String,
                                      at pointer: String) -> Int? {
        guard let value = props[key] else { return nil }
        guard let n = value.numberValue else {
            problem(pointer + "/" + key, .invalidType, "\"\(key)\" must be a number, not \(value.typeName).")
            return nil
        }
        guard n == n.rounded(), n >= Double(range.lowerBound), n <= Double(range.upperBound) else {
            problem(pointer + "/" + key, .badValue,
                    "\"\(key)\" must be a whole number of \(unit) from \(range.lowerBound) to \(range.upperBound); found \(JSONValue.numberText(n)).")
            return nil
        }
        return Int(n)
    }

    /// The error codes a `messages` key may name, for the message that lists them.
    private static let errorCodes = FieldError.Code.allCases.map(\.rawValue).sorted().joined(separator: ", ")

    private mutating func decodeOptions(_ value: JSONValue?, into spec: inout InputSpec, at pointer: String) {
        guard let value else {
            problem(pointer, .missing, "A select needs \"options\": [{\"id\": ..., \"title\": ...}].")
            return
        }
        guard let items = value.arrayValue else {
            problem(pointer, .invalidType, "\"options\" must be an array of {\"id\", \"title\"} objects.")
            return
        }
        if items.isEmpty, newChecks {
            problem(pointer, .badValue, "A select needs at least one option: with none it could never be answered.")
        }
        var seen = Set<String>()
        var defaults = 0
        for (i, item) in items.enumerated() {
            let itemPointer = "\(pointer)/\(i)"
            let id: String?
            switch item {
            case .object(let o):
                id = o["id"]?.stringValue
                checkTexts(o, ["title"], at: itemPointer, reporting: newChecks)
                if newChecks, let flag = o["default"] {
                    decodeOptionDefault(flag, multiple: spec.multiple, count: &defaults, at: itemPointer + "/default")
                }
            default: id = nil
            }
            guard let id, !id.isEmpty else {
                problem(itemPointer, .optionWithoutID, "Every option needs a non-empty string \"id\" (the value stored when it is chosen).")
                continue
            }
            if !seen.insert(id).inserted {
                problem(itemPointer + "/id", .duplicateOptionID, "The option id \"\(id)\" is used twice.")
            }
            if spec.multiple, newChecks, id.contains(",") {
                // The Formworks profile sends a multiple select's choices as one text, "a,b".
                problem(itemPointer + "/id", .badValue,
                        "An option of a multiple select cannot have \",\" in its id: Formworks clients send the chosen ids joined by commas.")
            }
            spec.options.append(id)
        }
    }

    /// An option's `default`: chosen when the form is first shown. One per select, several for a
    /// multiple one.
    private mutating func decodeOptionDefault(_ flag: JSONValue, multiple: Bool, count: inout Int, at pointer: String) {
        guard let isDefault = flag.boolValue else {
            problem(pointer, .invalidType, "\"default\" must be true or false.")
            return
        }
        guard isDefault else { return }
        count += 1
        if count > 1, !multiple {
            problem(pointer, .badValue, "Only one option of a select can be the default; a select with \"multiple\": true may have several.")
        }
    }

    // MARK: Repeat expansion

    /// The most components repeats may add to the Formworks profile, which writes each repeating
    /// group `max(min, 1)` times: as many repeat entries as a submission may create.
    static let maximumAddedComponents = SubmissionLimits().maxCreatedEntries

    /// A subtree's size in the Formworks profile: `expanded` with repeats written out (saturating),
    /// `plain` with each component once. What repeats add is the difference; the plain size is
    /// bounded by the body limit already.
    struct Expansion {
        var expanded = 0
        var plain = 0
        /// About how many bytes the profile writes for the subtree with empty id and title prefixes
        /// (saturating); each component also repeats the prefixes of the groups around it.
        var bytes = 0
        /// Whether a problem inside was already reported, so its ancestors are not.
        var reported = false
        var added: Int { expanded - plain }
    }

    /// The most bytes the Formworks profile may take, estimated before it is written: each
    /// component repeats the titles and ids of the groups around it once per repeat entry, so a
    /// 500 KB group title over many inputs, or a long title in a repeat, would make gigabytes.
    static let maximumProfileBytes = 16 << 20

    /// Refuses repeats whose minimums expand the profile by more than `maximumAddedComponents`:
    /// nested minimums multiply (three groups of `"min": 1000` in 255 bytes would ask for a billion
    /// components), and sibling repeats add up. The innermost repeat past the
    /// limit is reported, at its `repeat/min`, or at the `components` whose siblings together pass
    /// it. Then the profile's size is estimated and refused past `maximumProfileBytes`. Without
    /// `reporting` (a stored definition) nothing is reported; the caller reads the total.
    mutating func checkExpansion(_ nodes: [FormNode], reporting: Bool) -> Expansion {
        let total = expansion(nodes, reporting: reporting, pick: TextLanguages(language: defaultLanguage, defaultLanguage: defaultLanguage))
        guard reporting, !total.reported else { return total }
        if total.added > Self.maximumAddedComponents {
            problem("/components", .tooLarge, Self.siblingsMessage(total.added))
        } else if total.bytes > Self.maximumProfileBytes {
            problem("/components", .tooLarge,
                    "The Formworks profile of this form would take about \(Self.describe(total.bytes)) bytes, more than "
                        + "\(Self.maximumProfileBytes): each component repeats the titles of the groups around it, once per repeat entry; "
                        + "shorten the group titles or lower the repeat minimums.")
        }
        return total
    }

    private static func siblingsMessage(_ added: Int) -> String {
        "Repeats together add \(describe(added)) components to the Formworks profile (each written \"min\" times), "
            + "more than the \(maximumAddedComponents) repeats may add; lower their minimums."
    }

    private mutating func expansion(_ nodes: [FormNode], reporting: Bool, pick: TextLanguages) -> Expansion {
        var result = Expansion()
        for node in nodes {
            var part: Expansion
            switch node.kind {
            case .input(let spec):
                // Written out once per input, not per copy: the copies only add prefixes.
                part = Expansion(expanded: 1, plain: 1, bytes: FormDefinition.componentBytes(spec, node.source, pick: pick))
            case .section(let children):
                part = expansion(children, reporting: reporting, pick: pick)
            case .group(let group):
                part = expansion(group.children, reporting: reporting, pick: pick)
                if reporting, !part.reported, part.added > Self.maximumAddedComponents {
                    // Siblings inside the group pass the limit by themselves: lowering this group's min would not help.
                    problem(node.pointer + "/components", .tooLarge, Self.siblingsMessage(part.added))
                    part.reported = true
                }
                let idBytes = FormDefinition.escapedBytes(group.id)
                let groupTitleBytes = FormDefinition.escapedBytes(group.title)
                guard let bounds = group.repeatBounds else {
                    // Members get `id.` before their ids and `Title: ` before their titles.
                    let prefix = idBytes + 1 + (group.title.isEmpty ? 0 : groupTitleBytes + 2)
                    part.bytes = Self.saturating(part.bytes, plus: Self.saturating(part.expanded, times: prefix))
                    break
                }
                let copies = max(bounds.min, 1)
                // Each entry i: `id[i].` and `Title i: `, at most the digits of `copies` each.
                let digits = String(copies).utf8.count
                let titleBytes = (group.title.isEmpty ? idBytes : groupTitleBytes) + 3 + digits
                let entryPrefix = idBytes + 3 + digits + titleBytes
                let entryBytes = Self.saturating(part.bytes, plus: Self.saturating(part.expanded, times: entryPrefix))
                part.bytes = Self.saturating(entryBytes, times: copies)
                if copies > 1 {
                    let inner = part.expanded
                    part.expanded = Self.saturating(max(inner, 1), times: copies)
                    if reporting, !part.reported, part.added > Self.maximumAddedComponents {
                        problem(node.pointer + "/repeat/min", .tooLarge,
                                "\"min\" \(bounds.min) writes the group's \(inner) component\(inner == 1 ? "" : "s") (with their own repeats) "
                                    + "\(bounds.min) times, adding \(Self.describe(part.added)) to the Formworks profile, more than the "
                                    + "\(Self.maximumAddedComponents) repeats may add; lower it.")
                        part.reported = true
                    }
                }
            }
            result.expanded = Self.saturating(result.expanded, plus: part.expanded)
            result.plain += part.plain
            result.bytes = Self.saturating(result.bytes, plus: part.bytes)
            result.reported = result.reported || part.reported
        }
        return result
    }

    private static func saturating(_ a: Int, plus b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    private static func saturating(_ a: Int, times b: Int) -> Int {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? .max : product
    }


    private static func describe(_ count: Int) -> String {
        count == .max ? "more than \(Int.max)" : "\(count)"
    }

    // MARK: Ids

    /// Checks explicit ids for duplicates and gives every unnamed input and group a stable id,
    /// scope by scope (the form, then each group), in form order.
    mutating func assignIDs(_ nodes: inout [FormNode]) -> Set<String> {
        var taken = Set<String>()
        collectExplicitIDs(nodes, into: &taken)
        var generatedTaken = taken
        generateIDs(&nodes, taken: &generatedTaken)
        return generatedTaken
    }

    private mutating func collectExplicitIDs(_ nodes: [FormNode], into ids: inout Set<String>) {
        for node in nodes {
            switch node.kind {
            case .section(let children):
                collectExplicitIDs(children, into: &ids)
            case .input(let spec) where !spec.id.isEmpty:
                if !ids.insert(spec.id).inserted {
                    problem(node.pointer + "/id", .duplicateID, "The id \"\(spec.id)\" is already used at this level of the form; ids must be unique.")
                }
            case .group(let group) where !group.id.isEmpty:
                if !ids.insert(group.id).inserted {
                    problem(node.pointer + "/id", .duplicateID, "The id \"\(group.id)\" is already used at this level of the form; ids must be unique.")
                }
            default:
                break
            }
        }
    }

    private mutating func generateIDs(_ nodes: inout [FormNode], taken: inout Set<String>) {
        for i in nodes.indices {
            switch nodes[i].kind {
            case .section(var children):
                generateIDs(&children, taken: &taken)
                nodes[i].kind = .section(children: children)
            case .input(var spec):
                if spec.id.isEmpty, nodes[i].source["id"] == nil {
                    spec.id = Slug.uniqueID(type: nodes[i].typeKey, title: spec.title, taken: &taken)
                    nodes[i].generatedID = true
                    nodes[i].kind = .input(spec)
                }
            case .group(var group):
                if group.id.isEmpty, nodes[i].source["id"] == nil {
                    group.id = Slug.uniqueID(type: "group", title: group.title, taken: &taken)
                    nodes[i].generatedID = true
                }
                group.knownIDs = assignIDs(&group.children)
                nodes[i].kind = .group(group)
            }
        }
    }

    // MARK: Conditions

    /// Compiles every `visibleWhen`, resolving its field against the finished tree.
    mutating func resolveConditions(_ nodes: inout [FormNode], scopes: [[FormNode]], ancestors: [Int]) {
        for i in nodes.indices {
            if let raw = nodes[i].source["visibleWhen"] {
                nodes[i].visibleWhen = compileCondition(raw, at: nodes[i].pointer + "/visibleWhen",
                                                        owner: nodes[i].order, scopes: scopes, ancestors: ancestors)
            }
            if let raw = nodes[i].source["enabledWhen"] {
                let known = problems.count
                if case .input = nodes[i].kind {
                    nodes[i].enabledWhen = compileCondition(raw, at: nodes[i].pointer + "/enabledWhen",
                                                            owner: nodes[i].order, scopes: scopes, ancestors: ancestors)
                } else {
                    problem(nodes[i].pointer + "/enabledWhen", .notApplicable, "\"enabledWhen\" applies to inputs, not to a \"\(nodes[i].typeKey)\".")
                }
                // A stored definition may carry the name from before it had a meaning: it reads as an extra.
                if !newChecks, problems.count > known {
                    problems.removeLast(problems.count - known)
                    nodes[i].enabledWhen = nil
                }
            }
            if newChecks, let raw = nodes[i].source["default"] { decodeDefault(raw, of: nodes[i]) }
            // A stored definition may carry either name from before it had a meaning: an extra, unread.
            if newChecks, let raw = nodes[i].source["updates"] {
                nodes[i].updateConditions = decodeUpdates(raw, of: nodes[i], scopes: scopes, ancestors: ancestors)
            }
            switch nodes[i].kind {
            case .section(var children):
                resolveConditions(&children, scopes: scopes, ancestors: ancestors)
                nodes[i].kind = .section(children: children)
            case .group(var group):
                resolveConditions(&group.children, scopes: scopes + [group.children], ancestors: ancestors + [nodes[i].order])
                nodes[i].kind = .group(group)
            case .input:
                break
            }
        }
    }

    mutating func compileCondition(_ raw: JSONValue, at pointer: String, owner: Int,
                                           scopes: [[FormNode]], ancestors: [Int]) -> Condition? {
        guard let object = raw.objectValue else {
            problem(pointer, .badCondition, "\"visibleWhen\" must be an object: {\"field\", \"equals\"|\"notEquals\"|\"in\"|\"notEmpty\"}, or {\"all\": [...]} / {\"any\": [...]}.")
            return nil
        }
        for combinator in ["all", "any"] {
            guard let list = object[combinator] else { continue }
            guard object.count == 1, let items = list.arrayValue, !items.isEmpty else {
                problem(pointer, .badCondition, "\"\(combinator)\" must be the only key and hold a non-empty array of conditions.")
                return nil
            }
            var compiled: [Condition] = []
            for (i, item) in items.enumerated() {
                if let c = compileCondition(item, at: "\(pointer)/\(combinator)/\(i)", owner: owner, scopes: scopes, ancestors: ancestors) {
                    compiled.append(c)
                }
            }
            guard compiled.count == items.count else { return nil }
            return combinator == "all" ? .all(compiled) : .any(compiled)
        }
        guard let field = object["field"]?.stringValue else {
            problem(pointer + "/field", .badCondition, "A condition needs \"field\": the key path of an input that comes before it.")
            return nil
        }
        let tests = ConditionTest.allCases.filter { object[$0.rawValue] != nil }
        guard tests.count == 1, object.count == 2 else {
            problem(pointer, .badCondition, "A condition has \"field\" and exactly one of \"equals\", \"notEquals\", \"in\", \"notEmpty\".")
            return nil
        }
        guard let (node, reference) = resolve(field, at: pointer + "/field", owner: owner, scopes: scopes, ancestors: ancestors) else {
            return nil
        }
        let operand = object[tests[0].rawValue]!
        switch tests[0] {
        case .equals: return .equals(reference, Self.asStored(operand, by: node))
        case .notEquals: return .notEquals(reference, Self.asStored(operand, by: node))
        case .in:
            guard let values = operand.arrayValue else {
                problem(pointer + "/in", .badCondition, "\"in\" must be an array of values.")
                return nil
            }
            return .oneOf(reference, values.map { Self.asStored($0, by: node) })
        case .notEmpty:
            guard let wanted = operand.boolValue else {
                problem(pointer + "/notEmpty", .badCondition, "\"notEmpty\" must be true or false.")
                return nil
            }
            return .notEmpty(reference, wanted)
        }
    }

    /// The tests a condition can make on its field, by their keys in `visibleWhen`.
    private enum ConditionTest: String, CaseIterable {
        case equals, notEquals, `in`, notEmpty
    }

    /// A condition compares with the value as stored: a `usstate` stores the two-letter code, so
    /// `"Texas"` is compared as `"TX"`.
    private static func asStored(_ operand: JSONValue, by node: FormNode) -> JSONValue {
        guard case .input(let spec) = node.kind, spec.type == .usstate,
              case .string(let s) = operand, let code = USState.code(for: s) else { return operand }
        return .string(code)
    }

    /// Resolves a key path from the innermost scope outwards, as a reader would.
    private mutating func resolve(_ field: String, at pointer: String, owner: Int,
                                  scopes: [[FormNode]], ancestors: [Int]) -> (FormNode, FieldReference)? {
        let segments = field.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        switch KeyPathWalk.resolve(segments, scopes: scopes, ancestors: ancestors, wantRepeat: false) {
        case .found(let node, _, _):
            guard node.order < owner else {
                problem(pointer, .forwardReference, "\"\(field)\" must come before the component it controls; move it earlier or condition on another field.")
                return nil
            }
            return (node, FieldReference(slot: node.order))
        case .throughRepeat:
            problem(pointer, .conditionInRepeat, "\"\(field)\" stands inside a repeating group, which has one value per item; only components inside that group can name it.")
        case .notFound:
            problem(pointer, .unknownField, "No input has the key path \"\(field)\" here; name an input that exists (e.g. \"address.line1\").")
        }
        return nil
    }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self {
            if c == target { out += replacement } else { out.append(c) }
        }
        return out
    }
}
