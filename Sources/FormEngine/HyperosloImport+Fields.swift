import FormRegex

/// A hyperoslo/Form field as a Formhouse input: its type, validations and dropdown values.
extension HyperosloConverter {
    private static let fieldKeys: Set<String> = [
        "id", "title", "type", "info", "message", "placeholder", "validations", "values", "targets", "formula",
        "disabled", "hidden", "value", "size", "styles", "accessibility_label", "input_type",
    ]
    /// Layout and looks: kept under `"hyperoslo"` for clients.
    private static let presentationKeys = ["size", "styles", "accessibility_label", "input_type"]

    mutating func write(field: HyperosloField) -> JSONValue? {
        let object = field.object
        refuseUnknownKeys(object, known: Self.fieldKeys, at: field.pointer, of: "a field")
        guard let type = formhouseType(of: field) else { return nil }
        var props = JSONObject()
        props.append("id", .string(field.name))
        if let title = object["title"] { props.append("title", title) }
        // `message` is the name older hyperoslo/Form versions gave `info`.
        if let info = object["info"] ?? object["message"] { props.append("description", info) }
        if let placeholder = object["placeholder"] { props.append("placeholder", placeholder) }
        writeValidations(of: field, as: type, into: &props)
        if type == "select" {
            writeOptions(of: field, into: &props)
        }
        if let formula = formula(of: field, as: type) { props.append("formula", .string(formula)) }
        writeInitialValue(of: field, as: type, into: &props)
        checkInitialState(of: field)
        if let condition = visibility[field.id] { props.append("visibleWhen", condition) }
        if let condition = enabling[field.id] { props.append("enabledWhen", condition) }
        if let list = updates[field.id] { props.append("updates", .array(list.map(\.entry))) }
        var extras = Self.extras(object, Self.presentationKeys)
        if object["info"] != nil, let message = object["message"] { extras.append("message", message) }
        if !extras.isEmpty { props.append("hyperoslo", .object(extras)) }
        return [type: .object(props)]
    }

    /// The Formhouse type for a hyperoslo type, or nil with the reason recorded.
    private mutating func formhouseType(of field: HyperosloField) -> String? {
        let at = Self.pointer(field.pointer, "type")
        switch field.type {
        case "text", "name": return "text"
        case "email": return "email"
        case "password": return "password"
        case "number":
            // A number with a length or a format is a code written in digits (a card or account
            // number): text, so leading zeros stay and 19 digits are not rounded as a number would be.
            let rules = field.object["validations"]?.objectValue
            let isCode = ["min_length", "max_length", "format"].contains { rules?[$0] != nil }
            return isCode ? "numerical" : "integer"
        case "float": return "decimal"
        case "count": return "count"
        case "date": return "date"
        case "select", "segment": return "select"
        case "switch": return "switch"
        case "spacer":
            problem(at, "A spacer is an empty cell of the layout, not a question: it is not carried over. Remove it; to start a new row of questions, start a new section.")
        case "button", "remove":
            problem(at, "A button runs app code, which Formhouse does not run: it is not carried over. Remove it (a dynamic section's \"<section>[:index].remove\" button is carried over as its item removal).")
        case nil:
            problem(at, .missing, "A field needs a \"type\".")
        case let type?:
            problem(at, .unknownType, "The field type \"\(type)\" is not carried over: it is not one of hyperoslo/Form's own (text, name, email, password, number, float, count, date, select, segment, switch), so it is an app's custom field. Remove it or change its type.")
        }
        return nil
    }

    private mutating func writeValidations(of field: HyperosloField, as type: String, into props: inout JSONObject) {
        guard let value = field.object["validations"] else { return }
        let at = Self.pointer(field.pointer, "validations")
        guard let rules = value.objectValue else {
            problem(at, .invalidType, "\"validations\" must be an object.")
            return
        }
        refuseUnknownKeys(rules, known: ["required", "min_length", "max_length", "min_value", "max_value", "format"],
                          at: at, of: "a field's validations")
        if let required = rules["required"] {
            if required.boolValue == nil {
                problem(at + "/required", .invalidType, "\"required\" must be true or false.")
            } else if type == "switch", required == .bool(true) {
                problem(at + "/required", "A required switch is not carried over: hyperoslo/Form's switch always has a value, so it never fails, while a required switch in Formhouse must be on. Remove \"required\".")
            } else {
                props.append("required", required)
            }
        }
        // The engine's own rules of where each applies (lengths on numbers are characters as typed).
        let inputType = InputType(rawValue: type)
        let lengths = inputType?.takesLengths ?? false
        let bounds = inputType?.takesValueBounds ?? false
        for (key, name, applies) in [("min_length", "minLength", lengths), ("max_length", "maxLength", lengths),
                                     ("min_value", "minValue", bounds), ("max_value", "maxValue", bounds)] {
            guard let bound = rules[key] else { continue }
            guard applies else {
                problem(at + "/" + key, "\"\(key)\" on a \(field.type ?? "") field is not carried over: Formhouse does not apply it to a \(type). Remove it.")
                continue
            }
            let isLength = key.hasSuffix("length")
            guard let number = bound.numberValue, !isLength || (number >= 0 && number == number.rounded()) else {
                problem(at + "/" + key, .invalidType, isLength ? "\"\(key)\" must be a whole number of characters." : "\"\(key)\" must be a number.")
                continue
            }
            props.append(name, .number(number))
        }
        if let format = rules["format"] {
            writeSearch(format, on: type, at: at + "/format", into: &props)
        }
    }

    /// `format` is a case-insensitive search anywhere in the value: Formhouse's `search`.
    private mutating func writeSearch(_ format: JSONValue, on type: String, at pointer: String, into props: inout JSONObject) {
        guard InputType(rawValue: type)?.isText == true else {
            problem(pointer, "\"format\" on a \(type) is not carried over: Formhouse checks patterns on text only. Remove it.")
            return
        }
        guard let source = format.stringValue else {
            problem(pointer, .invalidType, "\"format\" must be a string.")
            return
        }
        // Checked here, not left to the engine, so that it is listed with the import's other problems;
        // compiled alone first, as the engine does, so that the offset is in the format as written.
        do {
            _ = try Pattern(source)
            _ = try Pattern(DefinitionDecoder.searchPattern(source))
        } catch {
            problem(pointer, .badRegex, "The format does not compile (at \(error.offset)): \(DefinitionDecoder.sentence(error)).")
            return
        }
        props.append("search", .string(source))
    }

    /// A field's `value`, the one it is first shown with: an input's `default` (a dropdown's is its
    /// value marked `default`, see `writeOptions`).
    private mutating func writeInitialValue(of field: HyperosloField, as type: String, into props: inout JSONObject) {
        guard let value = field.object["value"], value != .null, type != "select" else { return }
        guard !field.hasFormula else {
            problem(Self.pointer(field.pointer, "value"), "A field with a formula shows what its formula computes, so its \"value\" is not carried over: remove it.")
            return
        }
        props.append("default", value)
    }

    private mutating func writeOptions(of field: HyperosloField, into props: inout JSONObject) {
        let at = Self.pointer(field.pointer, "values")
        guard let values = field.object["values"]?.arrayValue, !values.isEmpty else {
            problem(at, .missing, "A \(field.type ?? "select") needs \"values\": a list of choices.")
            return
        }
        var options: [JSONValue] = []
        var defaults = 0
        // The field's own `value` is the value it is first shown with, as a value marked default is.
        let initial = field.object["value"].flatMap { $0 == .null ? nil : $0 }
        let initialID = initial.flatMap { Self.optionID($0) }
        if initial != nil, initialID.map({ id in values.contains { Self.optionID($0["id"]) == id } }) != true {
            problem(Self.pointer(field.pointer, "value"), .badValue, "The \"value\" of a dropdown is the id of one of its values.")
        }
        for (i, value) in values.enumerated() {
            let pointer = "\(at)/\(i)"
            guard let item = value.objectValue else {
                problem(pointer, .invalidType, "A value must be an object with \"id\" and \"title\".")
                continue
            }
            refuseUnknownKeys(item, known: ["id", "title", "info", "default", "value", "targets"], at: pointer, of: "a dropdown value")
            guard let id = Self.optionID(item["id"]) else {
                problem(pointer + "/id", .optionWithoutID, "A value needs an \"id\": a string, number or boolean.")
                continue
            }
            var option = JSONObject()
            option.append("id", .string(id))
            if let title = item["title"] { option.append("title", title) }
            if let info = item["info"] { option.append("description", info) }
            if let number = item["value"] {
                if number.numberValue == nil {
                    problem(pointer + "/value", .invalidType, "A value's \"value\" must be a number: the one formulas read.")
                } else {
                    option.append("value", number)
                }
            }
            if let isDefault = item["default"], isDefault.boolValue == nil {
                problem(pointer + "/default", .invalidType, "\"default\" must be true or false.")
            } else if item["default"] == .bool(true) || id == initialID {
                defaults += 1
                if defaults > 1 {
                    problem(pointer + (item["default"] == .bool(true) ? "/default" : "/id"), .badValue,
                            "Only one value of a dropdown can be the default (a value marked \"default\", or the field's \"value\").")
                }
                option.append("default", true)
            }
            options.append(.object(option))
        }
        props.append("options", .array(options))
    }

    /// A dropdown value's id as Formhouse's option id (always text): `0` is `"0"`, `true` is `"true"`.
    static func optionID(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let id)? where !id.isEmpty: id
        case .number(let n)?: JSONValue.numberText(n)
        case .bool(let b)?: b ? "true" : "false"
        default: nil
        }
    }

    /// `hidden` and `disabled` are where a field starts; a target must be able to change that.
    private mutating func checkInitialState(of field: HyperosloField) {
        if field.object["hidden"] == .bool(true), visibility[field.id] == nil {
            problem(Self.pointer(field.pointer, "hidden"), "A field that is always hidden is not carried over: no target shows it, so it would never be asked. Remove it, or add a \"show\" target.")
        }
        if field.object["disabled"] == .bool(true), !field.hasFormula, enabling[field.id] == nil {
            problem(Self.pointer(field.pointer, "disabled"), "A field that is always disabled is not carried over: no target enables it, so it could never be answered. Remove \"disabled\", or add an \"enable\" target.")
        }
    }
}
