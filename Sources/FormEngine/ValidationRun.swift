import FormRegex

extension FormDefinition {
    /// Validates a submission with this definition's rules, as the server does when it arrives.
    ///
    /// Inputs hidden by a `visibleWhen` that does not hold are neither checked nor kept. Every error
    /// is listed, in form order, so that each input can show its own.
    public func validate(_ submission: Submission, options: ValidationOptions = .init()) -> ValidationResult {
        var evaluator = FormulaEvaluator()
        return validate(submission, options: options, evaluator: &evaluator)
    }

    /// Validates, computing formulas with `evaluator` (whose step count tests read).
    func validate(_ submission: Submission, options: ValidationOptions, evaluator: inout FormulaEvaluator) -> ValidationResult {
        var run = ValidationRun(options: options, formID: id, capacity: knownIDs.count, slotCount: slotCount,
                                computedCount: formulas?.sites.count ?? 0)
        if run.walk(steps, submitted: submission.values) != submission.values.count {
            run.reportUnknown(in: submission.values, known: knownIDs)
        }
        // Moved out of the run, not copied: the formulas write into it in place.
        var values = run.scopes.removeLast()
        let computed = formulas.map { run.compute($0, in: &values, evaluator: &evaluator) }
        guard !run.failures.isEmpty else {
            return ValidationResult(errors: [], values: .object(values), fileIDs: run.fileIDs, computedValues: computed)
        }
        // The languages are looked up once for all the messages, and only when there are some.
        let texts = TextLanguages(preferences: options.languages, formLanguage: language(for: options.languages), defaultLanguage: defaultLanguage)
        return ValidationResult(errors: run.failures.map { FieldError(field: $0.field, code: $0.code, message: texts.write($0.message)) },
                                values: .object(values), fileIDs: run.fileIDs, computedValues: computed,
                                languages: (texts.builtIn, texts.form))
    }
}

/// One pass over the definition tree alongside the submitted values.
struct ValidationRun {
    /// An error as the walk finds it: its message is written after the walk.
    struct Failure {
        let field: String
        let code: FieldError.Code
        let message: ErrorMessage
    }

    /// Of the options, what the walk reads (not the languages: messages are written after it).
    let maxValueLength: Int
    let partial: Bool
    /// The uploads the submission names, by id (``ValidationOptions/files``).
    let uploads: [String: UploadedFile]
    /// The definition's id, which an upload must have been made for.
    let formID: String?
    /// Every error, in form order.
    var failures: [Failure] = []
    /// Accepted values per open group level, becoming the stored values.
    var scopes: [JSONObject]
    /// Accepted values of the inputs conditions read, by slot.
    var slots: [JSONValue]
    /// The key path of the enclosing groups (and repeat items), turned into text only for errors.
    var path: [KeyPath.Segment] = []
    /// The upload ids accepted so far, in form order.
    var fileIDs: [String] = []
    /// Every upload id a visible file input named so far, accepted or not: naming one twice is refused.
    var namedFileIDs = Set<String>()
    /// The key paths of the groups around each visible computed input, by formula index, in the
    /// order the walk met them; formulas are computed after the walk. Empty for a form without any.
    var computedPaths: [[[KeyPath.Segment]]]

    /// Formworks' phone rule; compiled once per process (the pattern is a constant known to compile).
    static let phonenumber = try! Pattern(FormworksRegex.phonenumber)

    init(options: ValidationOptions, formID: String?, capacity: Int, slotCount: Int, computedCount: Int) {
        maxValueLength = options.maxValueLength
        partial = options.partial
        uploads = options.files
        self.formID = formID
        slots = Array(repeating: .null, count: slotCount)
        computedPaths = Array(repeating: [], count: computedCount)
        scopes = [JSONObject(reservingCapacity: capacity)]
        scopes.reserveCapacity(4)
    }

    /// Validates one level; returns how many of `submitted`'s keys it recognized, so that unknown
    /// keys need a set lookup only when there are some.
    mutating func walk(_ steps: [Step], submitted: JSONObject) -> Int {
        var cursor = 0
        return walk(steps, submitted: submitted, cursor: &cursor)
    }

    /// `cursor` is where the next submitted key is expected; sections share their level's cursor.
    private mutating func walk(_ steps: [Step], submitted: JSONObject, cursor: inout Int) -> Int {
        var recognized = 0
        for step in steps {
            switch step {
            case .section(let section):
                if let condition = section.condition, !condition.evaluate(slots) {
                    recognized += Self.present(section.children, in: submitted)
                    continue
                }
                recognized += walk(section.children, submitted: submitted, cursor: &cursor)
            case .input(let rule):
                let raw = submitted.value(of: rule.spec.id, cursor: &cursor)
                if raw != nil { recognized += 1 }
                if let condition = rule.condition, !condition.evaluate(slots) { continue }
                if let index = rule.spec.formulaIndex {
                    // A value sent for it is ignored; a placeholder marks where the computed one goes.
                    computedPaths[index].append(path)
                    scopes[scopes.count - 1].append(rule.spec.id, .null)
                    continue
                }
                // Disabled: shown read-only, so what is sent for it is dropped, not judged.
                if let enabled = rule.enabledWhen, !enabled.evaluate(slots) { continue }
                if let value = check(rule, raw ?? .null) {
                    scopes[scopes.count - 1].append(rule.spec.id, value)
                    if let slot = rule.slot { slots[slot] = value }
                } else if rule.spec.type == .switch, let slot = rule.slot, Self.isOff(raw ?? .null, rule) {
                    // A visible switch left alone is off, whether the client sent "", nothing or false
                    // (refused by `required`): `{"equals": false}` must not depend on which.
                    slots[slot] = .bool(false)
                }
            case .group(let group):
                let raw = submitted.value(of: group.spec.id, cursor: &cursor)
                if raw != nil { recognized += 1 }
                if let condition = group.condition, !condition.evaluate(slots) { continue }
                path.append(.key(group.spec.id))
                if let value = walkGroup(group, raw ?? .null) {
                    scopes[scopes.count - 1].append(group.spec.id, value)
                }
                path.removeLast()
            }
        }
        return recognized
    }

    /// How many of `submitted`'s keys belong to the (hidden) steps.
    private static func present(_ steps: [Step], in submitted: JSONObject) -> Int {
        var n = 0
        for step in steps {
            switch step {
            case .section(let section): n += present(section.children, in: submitted)
            case .input(let rule): if submitted.position(of: rule.spec.id) != nil { n += 1 }
            case .group(let group): if submitted.position(of: group.spec.id) != nil { n += 1 }
            }
        }
        return n
    }

    private mutating func walkGroup(_ group: GroupRule, _ raw: JSONValue) -> JSONValue? {
        guard let bounds = group.spec.repeatBounds else {
            let object: JSONObject
            switch raw {
            case .null: object = JSONObject()
            case .object(let o): object = o
            default:
                fail(.type, .naming(.typeGroup, typeOf: raw), nil)
                return nil
            }
            let out = walkItem(group, object)
            return out.isEmpty ? nil : .object(out)
        }
        let items: [JSONValue]
        switch raw {
        case .null: items = []
        case .array(let a): items = a
        default:
            fail(.type, .naming(.typeRepeat, typeOf: raw), nil)
            return nil
        }
        // A blank item past the required ones is no item: a Formworks snapshot always sends the entry
        // the profile shows, so an optional entry left blank must not trip its inputs' `required`.
        let counted = items.indices.filter { $0 < bounds.min || !Self.isBlankItem(items[$0], of: group) }
        if (counted.count < bounds.min && !partial) || counted.count > bounds.max {
            let message: ErrorMessage = bounds.min != bounds.max ? .text(.repeatBetween, ["min": "\(bounds.min)", "max": "\(bounds.max)"])
                : bounds.min == 1 ? .text(.repeatOne) : .text(.repeatExactly, ["min": "\(bounds.min)"])
            fail(.repeat, message, nil)
        }
        // Every item is checked, also past `max`, so that all of the submission's errors are listed.
        var out: [JSONValue] = []
        out.reserveCapacity(counted.count)
        for i in counted {
            path.append(.index(i))
            switch items[i] {
            case .object(let o): out.append(.object(walkItem(group, o)))
            case .null: out.append(.object(walkItem(group, JSONObject())))
            default: fail(.type, .naming(.typeItem, typeOf: items[i]), nil)
            }
            path.removeLast()
        }
        // No items is stored as [] rather than left out: receivers may count the items.
        return .array(out)
    }

    /// Whether a repeat item holds no answer at all: null, or an object of the group's own keys whose
    /// values are all empty (nested groups and repeats included). Anything else, an unknown key
    /// too, is an item, checked as such.
    static func isBlankItem(_ item: JSONValue, of group: GroupRule) -> Bool {
        switch item {
        case .null: true
        case .object(let o):
            o.members.allSatisfy { group.spec.knownIDs.contains($0.key) && (isBlank($0.value) || group.computedIDs.contains($0.key)) }
        default: false
        }
    }

    private static func isBlank(_ value: JSONValue) -> Bool {
        switch value {
        case .null: true
        case .string(let s): s.isEmpty
        case .array(let a): a.allSatisfy(isBlank)
        case .object(let o): o.members.allSatisfy { isBlank($0.value) }
        case .bool, .number: false
        }
    }

    private mutating func walkItem(_ group: GroupRule, _ object: JSONObject) -> JSONObject {
        if !slots.isEmpty, group.spec.repeatBounds != nil {
            for slot in group.slots { slots[slot] = .null }
        }
        scopes.append(JSONObject())
        if walk(group.children, submitted: object) != object.count {
            reportUnknown(in: object, known: group.spec.knownIDs)
        }
        return scopes.removeLast()
    }

    mutating func reportUnknown(in object: JSONObject, known: Set<String>) {
        for key in object.keys where !known.contains(key) {
            path.append(.key(key))
            fail(.unknown, .text(.unknown, ["field": fieldPath]), nil)
            path.removeLast()
        }
    }

    var fieldPath: String {
        var text = ""
        for segment in path {
            switch segment {
            case .key(let key):
                if !text.isEmpty { text += "." }
                text += key
            case .index(let i):
                text += "[\(i)]"
            }
        }
        return text
    }

    /// Records an error at the current path, or at the input `rule` under it; the input's own
    /// message for `code`, if it has one, replaces `message`.
    mutating func fail(_ code: FieldError.Code, _ message: ErrorMessage, _ rule: InputRule?) {
        var field = fieldPath
        if let rule { field += field.isEmpty ? rule.spec.id : "." + rule.spec.id }
        failures.append(Failure(field: field, code: code, message: rule?.spec.messages[code].map(ErrorMessage.custom) ?? message))
    }

    // MARK: Inputs

    /// Checks one visible input; returns the value to store, or nil when empty or invalid.
    mutating func check(_ rule: InputRule, _ raw: JSONValue) -> JSONValue? {
        if Self.isEmptyAnswer(raw, rule) {
            if rule.spec.required, !partial { fail(.required, .text(.required), rule) }
            return nil
        }
        switch rule.spec.type {
        case .text, .multiline, .email, .numerical, .phonenumber, .password, .usphone, .usstate:
            return checkText(rule, raw)
        case .integer, .count:
            guard typedLengthFits(rule, raw) else { return nil }
            // Whole numbers are stored as JSON numbers, which stay exact only up to 2^53 (a double's
            // mantissa); past that, as number or as text, they are refused rather than rounded.
            let n: Double
            switch raw {
            case .number(let v) where v == v.rounded():
                // A JSON number from 2^53 on may already be rounded (9007199254740993 reads as
                // ...992), so only text can carry one exactly.
                guard v.magnitude < Self.twoToThe53 else {
                    fail(.integer, .text(.integerLargeNumber), rule)
                    return nil
                }
                n = v
            case .string(let s):
                switch ValueRules.wholeNumber(s) {
                case .value(let i) where i.magnitude <= 1 << 53:
                    n = Double(i)
                case .value, .tooLarge:
                    fail(.integer, .text(.integerRange), rule)
                    return nil
                case .invalid:
                    fail(.integer, .text(.integer), rule)
                    return nil
                }
            default:
                fail(.integer, .text(.integer), rule)
                return nil
            }
            guard abs(n) <= Self.twoToThe53 else {
                fail(.integer, .text(.integerRange), rule)
                return nil
            }
            return checkBounds(rule, n)
        case .decimal:
            guard typedLengthFits(rule, raw) else { return nil }
            let n: Double
            let places: Int
            switch raw {
            case .number(let v):
                n = v
                places = ValueRules.decimalPlaces(v)
            case .string(let s) where s.utf8.count <= 64:
                guard let parsed = ValueRules.decimal(s) else { fallthrough }
                // Stored and compared with the bounds as a Double: text with more digits than it
                // keeps would be checked and stored as another number.
                guard ValueRules.isExact(s, parsed.value) else {
                    fail(.decimal, .text(.decimalDigits), rule)
                    return nil
                }
                (n, places) = parsed
            default:
                fail(.decimal, .text(.decimal), rule)
                return nil
            }
            if let maxPlaces = rule.spec.maxDecimalPlaces, places > maxPlaces {
                fail(.decimalPlaces, maxPlaces == 0 ? .text(.decimalPlacesNone) : .text(.decimalPlaces, ["max": "\(maxPlaces)"]), rule)
                return nil
            }
            return checkBounds(rule, n)
        case .date:
            guard case .string(let s) = raw, ValueRules.isDate(s) else {
                fail(.date, .text(.date), rule)
                return nil
            }
            let inBounds = within(s, rule.spec.minDate, rule.spec.maxDate, (.minValue, .maxValue), (.minDate, .maxDate), rule, { $0 })
            return inBounds ? raw : nil
        case .select:
            return checkSelect(rule, raw)
        case .file:
            return checkFiles(rule, raw)
        case .switch:
            let b: Bool
            switch raw {
            case .bool(let v): b = v
            case .string("true"): b = true
            case .string("false"): b = false
            default:
                fail(.boolean, .text(.boolean), rule)
                return nil
            }
            // Off is a switch's unanswered state: a draft has not said no yet.
            if rule.spec.required, !b, !partial {
                fail(.required, .text(.requiredSwitch), rule)
                return nil
            }
            return .bool(b)
        }
    }

    /// A switch answer that means off: no answer, `false` or `"false"`.
    static func isOff(_ raw: JSONValue, _ rule: InputRule) -> Bool {
        switch raw {
        case .bool(false), .string("false"): true
        default: isEmptyAnswer(raw, rule)
        }
    }

    /// No answer: null or "", or no choice in a multiple select or file input. An array or object
    /// sent to any other input is a wrong type, reported as such, not an empty answer.
    static func isEmptyAnswer(_ raw: JSONValue, _ rule: InputRule) -> Bool {
        switch raw {
        case .null: true
        case .string(let s): s.isEmpty
        case .array(let a): (rule.spec.multiple || rule.spec.file != nil) && a.isEmpty
        default: false
        }
    }

    /// 2^53: doubles hold every whole number up to it exactly, and no JSON number from it on can be
    /// trusted to be the one that was written.
    private static let twoToThe53: Double = 9_007_199_254_740_992

    private mutating func checkText(_ rule: InputRule, _ raw: JSONValue) -> JSONValue? {
        let s: String
        switch raw {
        case .string(let v): s = v
        case .number(let n):
            // Digits past a double's 53 bits would be stored changed (4111111111111111111 becomes
            // ...168), so such numbers must come as text.
            guard n.magnitude < Self.twoToThe53 else {
                fail(.type, .text(.typeLargeNumber), rule)
                return nil
            }
            s = JSONValue.numberText(n)
        default:
            fail(.type, .naming(.typeText, typeOf: raw), rule)
            return nil
        }
        let cap = maxValueLength
        var length: Int?
        if s.utf8.count > cap {
            let n = ValueRules.length(s, limit: cap)
            if n > cap {
                fail(.maxLength, .text(.maxLength, ["max": "\(cap)"]), rule)
                return nil
            }
            length = n
        }
        if rule.spec.minLength != nil || rule.spec.maxLength != nil {
            let n = length ?? ValueRules.length(s, limit: cap)
            guard lengthWithinBounds(rule, n) else { return nil }
        }
        // The message key, not the message: its text is looked up only for a value that fails.
        let ok: Bool
        let code: FieldError.Code
        let message: MessageKey
        switch rule.spec.type {
        case .email:
            ok = rule.spec.pattern?.matches(s) ?? FormworksRegex.matchesEmail(s)
            (code, message) = (.email, .email)
        case .phonenumber:
            ok = (rule.spec.pattern ?? Self.phonenumber).matches(s)
            (code, message) = (.phone, .phone)
        case .numerical:
            ok = rule.spec.pattern?.matches(s) ?? FormworksRegex.matchesNumerical(s)
            (code, message) = (.numerical, .numerical)
        case .usphone:
            ok = rule.spec.pattern?.matches(s) ?? ValueRules.isUSPhone(s)
            (code, message) = (.phone, .usPhone)
        case .usstate:
            guard let state = USState.code(for: s) else {
                fail(.state, .text(.state), rule)
                return nil
            }
            return .string(state)
        default:
            ok = rule.spec.pattern?.matches(s) ?? true
            (code, message) = (.pattern, .pattern)
        }
        guard ok else {
            fail(code, .text(message), rule)
            return nil
        }
        if rule.spec.type == .numerical, rule.spec.minValue != nil || rule.spec.maxValue != nil {
            guard digitsInBounds(rule, s) else { return nil }
        }
        return .string(s)
    }

    private mutating func checkBounds(_ rule: InputRule, _ n: Double) -> JSONValue? {
        let inBounds = within(n, rule.spec.minValue, rule.spec.maxValue, (.minValue, .maxValue), (.minValue, .maxValue), rule,
                              JSONValue.numberText)
        return inBounds ? .number(n) : nil
    }

    /// Whether `value` lies within the rule's bounds (either may be absent); records the error of the
    /// bound it passes, with that bound's message (`{min}` or `{max}` filled with `text` of the
    /// bound). The message is named, not written, so that nothing is copied for a value in bounds.
    mutating func within<Bound: Comparable>(
        _ value: Bound, _ low: Bound?, _ high: Bound?, _ codes: (low: FieldError.Code, high: FieldError.Code),
        _ messages: (low: MessageKey, high: MessageKey), _ rule: InputRule, _ text: (Bound) -> String
    ) -> Bool {
        if let low, value < low {
            fail(codes.low, .text(messages.low, ["min": text(low)]), rule)
            return false
        }
        if let high, value > high {
            fail(codes.high, .text(messages.high, ["max": text(high)]), rule)
            return false
        }
        return true
    }

    /// An option id as sent: text, or a JSON number taken as its text (option `"1"` sent as `1`), as
    /// text inputs take numbers, below 2^53.
    private static func optionText(_ value: JSONValue) -> String? {
        switch value {
        case .string(let s): s
        case .number(let n) where abs(n) < twoToThe53: JSONValue.numberText(n)
        default: nil
        }
    }

    private mutating func checkSelect(_ rule: InputRule, _ raw: JSONValue) -> JSONValue? {
        guard rule.spec.multiple else {
            // The definition's spelling is stored: Swift's == also matches another Unicode
            // normalization of the same text.
            guard let s = Self.optionText(raw), let i = rule.spec.options.firstIndex(of: s) else {
                fail(.option, .text(.option), rule)
                return nil
            }
            return .string(rule.spec.options[i])
        }
        var chosen: [String] = []
        switch raw {
        case .array(let items):
            for item in items {
                guard let s = Self.optionText(item) else {
                    fail(.option, .text(.option), rule)
                    return nil
                }
                chosen.append(s)
            }
        case .string(let s):
            // The formworks profile serves a multiple select as text: "a,b". Empty pieces are kept,
            // so "," or "a,,b" name an option that does not exist instead of choosing nothing.
            chosen = s.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        default:
            fail(.option, .text(.option), rule)
            return nil
        }
        var out: [JSONValue] = []
        for s in chosen {
            guard let i = rule.spec.options.firstIndex(of: s) else {
                fail(.option, .text(.option), rule)
                return nil
            }
            let option = JSONValue.string(rule.spec.options[i])
            if !out.contains(option) { out.append(option) }
        }
        return .array(out)
    }

    // MARK: Files

    /// Checks a file input's upload ids against the uploads' facts; returns each upload's stored
    /// form, an object when the input holds one file and an array when it may hold more.
    private mutating func checkFiles(_ rule: InputRule, _ raw: JSONValue) -> JSONValue? {
        guard let rules = rule.spec.file else { return nil }
        let ids: [String]
        switch raw {
        case .string(let id):
            ids = [id]
        case .array(let items) where items.allSatisfy({ $0.stringValue != nil }):
            ids = items.compactMap(\.stringValue)
        default:
            fail(.type, .naming(.typeFiles, typeOf: raw), rule)
            return nil
        }
        if ids.count > rules.maxFiles {
            fail(.maxFiles, rules.maxFiles == 1 ? .text(.maxFilesOne) : .text(.maxFiles, ["max": "\(rules.maxFiles)"]), rule)
            return nil
        }
        var files: [UploadedFile] = []
        for id in ids {
            guard let file = usableFile(id, for: rule, rules) else { return nil }
            guard rules.accepts(mediaType: file.contentType) else {
                fail(.fileType, .fileType(file.contentType, by: rules), rule)
                return nil
            }
            guard file.size <= rules.maxSize else {
                fail(.maxSize, .text(.maxSize, ["size": Self.sizeText(rules.maxSize)]), rule)
                return nil
            }
            files.append(file)
        }
        fileIDs += ids
        return rules.maxFiles == 1 ? files[0].storedValue : .array(files.map(\.storedValue))
    }

    /// The upload `id` names, if this input may take it; records why not otherwise.
    private mutating func usableFile(_ id: String, for rule: InputRule, _ rules: FileInputRules) -> UploadedFile? {
        let message: ErrorMessage
        if !namedFileIDs.insert(id).inserted {
            message = .text(.fileTwice)
        } else if let file = uploads[id] {
            if file.formID != formID || file.field != rules.path {
                message = .text(file.formID != formID ? .fileOtherForm : .fileOtherField)
            } else if !file.isComplete {
                message = .text(.fileUnfinished)
            } else if file.isBound {
                message = .text(.fileBound)
            } else {
                return file
            }
        } else {
            message = .text(.fileUnknown)
        }
        fail(.file, message, rule)
        return nil
    }

    /// A byte count for a person: `512 bytes`, `300 KB`, `10 MB`, `2.5 GB` (units of 1024, one decimal
    /// at most, rounded down so that a limit is never overstated).
    static func sizeText(_ bytes: Int) -> String {
        let units = [(1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")]
        guard let (unit, name) = units.first(where: { bytes >= $0.0 }) else { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        let tenths = bytes * 10 / unit
        return "\(tenths / 10)" + (tenths % 10 == 0 ? "" : ".\(tenths % 10)") + " " + name
    }
}
