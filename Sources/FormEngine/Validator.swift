import FormRegex

extension FormDefinition {
    /// Validates a parsed submission with this definition's rules.
    public func validate(_ submission: Submission, options: ValidationOptions = .init()) -> ValidationResult {
        var run = ValidationRun(options: options)
        run.walk(nodes, submitted: submission.values)
        run.reportUnknown(in: submission.values, known: knownIDs)
        return ValidationResult(errors: run.errors, values: .object(run.scopes[0]))
    }
}

/// One pass over the definition tree alongside the submitted values.
struct ValidationRun {
    let options: ValidationOptions
    var errors: [FieldError] = []
    /// Accepted values per open group level; conditions read from here.
    var scopes: [JSONObject] = [JSONObject()]
    /// The key path of the current position, turned into text only for errors.
    var path: [KeyPath.Segment] = []

    /// Formworks' phone rule; compiled once per process (the pattern is a constant known to compile).
    static let phonenumber = try! Pattern(FormworksRegex.phonenumber)

    init(options: ValidationOptions) {
        self.options = options
    }

    mutating func walk(_ nodes: [FormNode], submitted: JSONObject) {
        for node in nodes {
            if let condition = node.visibleWhen, !condition.evaluate(scopes) { continue }
            switch node.kind {
            case .section(let children):
                walk(children, submitted: submitted)
            case .input(let spec):
                path.append(.key(spec.id))
                if let value = check(spec, submitted[spec.id] ?? .null) {
                    scopes[scopes.count - 1].append(spec.id, value)
                }
                path.removeLast()
            case .group(let group):
                path.append(.key(group.id))
                if let value = walkGroup(group, submitted[group.id] ?? .null) {
                    scopes[scopes.count - 1].append(group.id, value)
                }
                path.removeLast()
            }
        }
    }

    private mutating func walkGroup(_ group: GroupSpec, _ raw: JSONValue) -> JSONValue? {
        guard let bounds = group.repeatBounds else {
            let object: JSONObject
            switch raw {
            case .null: object = JSONObject()
            case .object(let o): object = o
            default:
                fail("type", "Expected an object of this group's fields, got \(raw.typeName).", nil)
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
            fail("type", "Expected an array of items, got \(raw.typeName).", nil)
            return nil
        }
        if items.count < bounds.min || items.count > bounds.max {
            fail("repeat", bounds.min == bounds.max ? "Add exactly \(bounds.min) items."
                                                    : "Add between \(bounds.min) and \(bounds.max) items.", nil)
        }
        var out: [JSONValue] = []
        out.reserveCapacity(min(items.count, bounds.max))
        for (i, item) in items.prefix(bounds.max).enumerated() {
            path.append(.index(i))
            switch item {
            case .object(let o): out.append(.object(walkItem(group, o)))
            case .null: out.append(.object(walkItem(group, JSONObject())))
            default: fail("type", "Expected an object of this group's fields, got \(item.typeName).", nil)
            }
            path.removeLast()
        }
        return .array(out)
    }

    private mutating func walkItem(_ group: GroupSpec, _ object: JSONObject) -> JSONObject {
        scopes.append(JSONObject())
        walk(group.children, submitted: object)
        reportUnknown(in: object, known: group.knownIDs)
        return scopes.removeLast()
    }

    mutating func reportUnknown(in object: JSONObject, known: Set<String>) {
        for key in object.keys where !known.contains(key) {
            path.append(.key(key))
            fail("unknown", "This form has no field \"\(fieldPath)\".", nil)
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

    private mutating func fail(_ code: String, _ message: String, _ spec: InputSpec?) {
        errors.append(FieldError(field: fieldPath, code: code, message: spec?.messages[code] ?? message))
    }

    // MARK: Inputs

    /// Checks one visible input; returns the value to store, or nil when empty or invalid.
    private mutating func check(_ spec: InputSpec, _ raw: JSONValue) -> JSONValue? {
        if Condition.isEmpty(raw) {
            if spec.required { fail("required", "This field is required.", spec) }
            return nil
        }
        switch spec.type {
        case .text, .multiline, .email, .numerical, .phonenumber, .password, .usphone, .usstate:
            return checkText(spec, raw)
        case .integer, .count:
            let n: Double
            switch raw {
            case .number(let v) where v == v.rounded() && abs(v) <= 9.007_199_254_740_992e15: n = v
            case .string(let s) where s.utf8.count <= 20:
                guard let i = ValueRules.integer(s) else { fallthrough }
                n = Double(i)
            default:
                fail("integer", "Please enter a whole number.", spec)
                return nil
            }
            return checkBounds(spec, n)
        case .decimal:
            let n: Double
            let places: Int
            switch raw {
            case .number(let v):
                n = v
                places = ValueRules.decimalPlaces(v)
            case .string(let s) where s.utf8.count <= 64:
                guard let parsed = ValueRules.decimal(s) else { fallthrough }
                (n, places) = parsed
            default:
                fail("decimal", "Please enter a number, like 12.5.", spec)
                return nil
            }
            if let maxPlaces = spec.maxDecimalPlaces, places > maxPlaces {
                fail("decimalPlaces", maxPlaces == 0 ? "Please enter a whole number, without decimals."
                                                     : "Use at most \(maxPlaces) digits after the decimal point.", spec)
                return nil
            }
            return checkBounds(spec, n)
        case .date:
            guard case .string(let s) = raw, ValueRules.isDate(s) else {
                fail("date", "Please enter a date as YYYY-MM-DD.", spec)
                return nil
            }
            if let lo = spec.minDate, s < lo {
                fail("minValue", "The date must be on or after \(lo).", spec)
                return nil
            }
            if let hi = spec.maxDate, s > hi {
                fail("maxValue", "The date must be on or before \(hi).", spec)
                return nil
            }
            return raw
        case .select:
            return checkSelect(spec, raw)
        case .switch:
            let b: Bool
            switch raw {
            case .bool(let v): b = v
            case .string("true"): b = true
            case .string("false"): b = false
            default:
                fail("boolean", "Please answer with true or false.", spec)
                return nil
            }
            if spec.required, !b {
                fail("required", "This must be switched on.", spec)
                return nil
            }
            return .bool(b)
        }
    }

    private mutating func checkText(_ spec: InputSpec, _ raw: JSONValue) -> JSONValue? {
        let s: String
        switch raw {
        case .string(let v): s = v
        case .number(let n): s = JSONValue.numberText(n)
        default:
            fail("type", "Expected text, got \(raw.typeName).", spec)
            return nil
        }
        let cap = options.maxValueLength
        var length: Int?
        if s.utf8.count > cap {
            let n = ValueRules.length(s, limit: cap)
            if n > cap {
                fail("maxLength", "Use at most \(cap) characters.", spec)
                return nil
            }
            length = n
        }
        if spec.minLength != nil || spec.maxLength != nil {
            let n = length ?? ValueRules.length(s, limit: cap)
            if let lo = spec.minLength, n < lo {
                fail("minLength", "Use at least \(lo) characters.", spec)
                return nil
            }
            if let hi = spec.maxLength, n > hi {
                fail("maxLength", "Use at most \(hi) characters.", spec)
                return nil
            }
        }
        let ok: Bool
        let code: String
        let message: String
        switch spec.type {
        case .email:
            ok = spec.pattern?.matches(s) ?? FormworksRegex.matchesEmail(s)
            (code, message) = ("email", "Please provide a valid e-mail address.")
        case .phonenumber:
            ok = (spec.pattern ?? Self.phonenumber).matches(s)
            (code, message) = ("phone", "Please type in a Brazilian phone number, like (11) 91234-5678.")
        case .numerical:
            ok = spec.pattern?.matches(s) ?? FormworksRegex.matchesNumerical(s)
            (code, message) = ("numerical", "Only numerical characters are accepted.")
        case .usphone:
            ok = spec.pattern?.matches(s) ?? ValueRules.isUSPhone(s)
            (code, message) = ("phone", "Please type a US phone number like 555-123-4567.")
        case .usstate:
            guard let state = USState.code(for: s) else {
                fail("state", "Please enter a US state's name or two-letter code.", spec)
                return nil
            }
            return .string(state)
        default:
            ok = spec.pattern?.matches(s) ?? true
            (code, message) = ("pattern", "The value does not have the expected format.")
        }
        guard ok else {
            fail(code, message, spec)
            return nil
        }
        return .string(s)
    }

    private mutating func checkBounds(_ spec: InputSpec, _ n: Double) -> JSONValue? {
        if let lo = spec.minValue, n < lo {
            fail("minValue", "The value must be at least \(JSONValue.numberText(lo)).", spec)
            return nil
        }
        if let hi = spec.maxValue, n > hi {
            fail("maxValue", "The value must be at most \(JSONValue.numberText(hi)).", spec)
            return nil
        }
        return .number(n)
    }

    private mutating func checkSelect(_ spec: InputSpec, _ raw: JSONValue) -> JSONValue? {
        let message = "Please choose one of the options."
        guard spec.multiple else {
            guard case .string(let s) = raw, spec.options.contains(s) else {
                fail("option", message, spec)
                return nil
            }
            return raw
        }
        var chosen: [String] = []
        switch raw {
        case .array(let items):
            for item in items {
                guard case .string(let s) = item else {
                    fail("option", message, spec)
                    return nil
                }
                chosen.append(s)
            }
        case .string(let s):
            // The formworks profile serves a multiple select as text: "a,b".
            chosen = s.split(separator: ",").map(String.init)
        default:
            fail("option", message, spec)
            return nil
        }
        var out: [JSONValue] = []
        for s in chosen where !out.contains(.string(s)) {
            guard spec.options.contains(s) else {
                fail("option", message, spec)
                return nil
            }
            out.append(.string(s))
        }
        return .array(out)
    }
}
