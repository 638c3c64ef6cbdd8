/// Converts a form written for hyperoslo/Form (an iOS library whose forms are JSON: groups of
/// sections of fields) into a Formhouse definition. See docs/engine.md, "Importing hyperoslo/Form",
/// for the mapping and for what is refused.
public enum HyperosloImport {
    /// The Formhouse definition for the hyperoslo/Form JSON in `bytes`: the JSON an admin could
    /// upload, with `id` when given and `title` (the first group's title when not given).
    ///
    /// Anything that cannot be carried over is refused, never dropped: every such part is listed in
    /// the thrown error, each problem with a JSON Pointer into `bytes` (code `notCarriedOver` for
    /// parts Formhouse has no equivalent of).
    public static func definition(from bytes: [UInt8], id: String? = nil, title: String? = nil) throws(DefinitionErrors) -> JSONValue {
        let root: JSONValue
        do {
            root = try JSONValue(parsing: bytes)
        } catch {
            throw DefinitionErrors(notJSON: error)
        }
        var converter = HyperosloConverter()
        let components = converter.convert(root)
        guard converter.problems.isEmpty else { throw DefinitionErrors(problems: converter.problems) }
        var definition = JSONObject()
        if let id { definition.append("id", .string(id)) }
        definition.append("title", .string(title ?? converter.firstGroupTitle ?? "Form"))
        definition.append("components", .array(components))
        // What the engine refuses of the conversion (a formula's type error, say) is reported too,
        // pointing into the import: the person fixes the file they have, not one they never saw.
        let converted = JSONValue.object(definition)
        do {
            _ = try FormDefinition(json: converted)
        } catch {
            throw DefinitionErrors(problems: error.problems.map { converter.importProblem(for: $0, in: converted) })
        }
        return converted
    }
}

extension HyperosloConverter {
    /// `problem`, found in the converted definition, with its pointer moved to the field of the
    /// import it came from (and to its `formula` when that is where it lies); a problem of no one
    /// field keeps its pointer, said to be into the conversion.
    func importProblem(for problem: DefinitionProblem, in converted: JSONValue) -> DefinitionProblem {
        var tokens = problem.pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)[...]
        var node = converted
        var groups: [String] = []
        var input: String?
        var suffix: [String] = []
        while let token = tokens.popFirst() {
            if let index = Int(token), let items = node.arrayValue, items.indices.contains(index) {
                node = items[index]
                continue
            }
            guard let child = node[token] else { break }
            // A component is an object with one member, its type: its properties come next.
            if case .object(let component) = node, component.count == 1, let id = child["id"]?.stringValue {
                if token == "group" { groups.append(id) } else if token != "section" { input = id }
                if token != "group" && token != "section" {
                    suffix = Array(tokens)
                    break
                }
            }
            node = child
        }
        guard let input, let field = fields.values.first(where: { $0.name == input && ($0.scope == nil || groups.last == $0.scope || groups.isEmpty) }) else {
            return DefinitionProblem(pointer: problem.pointer, code: problem.code, message: "In the converted definition: " + problem.message)
        }
        var pointer = suffix.first == "formula" && field.hasFormula ? Self.pointer(field.pointer, "formula") : field.pointer
        if suffix.first == "default", field.object["value"] != nil { pointer = Self.pointer(field.pointer, "value") }
        if suffix.first == "updates", suffix.count > 1, let index = Int(suffix[1]), let list = updates[field.id], list.indices.contains(index) {
            pointer = list[index].pointer
        }
        return DefinitionProblem(pointer: pointer, code: problem.code, message: problem.message)
    }
}

/// One walk over a hyperoslo/Form document: first every field, section and target is indexed (a
/// target may name a field further on), then the components are written.
struct HyperosloConverter {
    var problems: [DefinitionProblem] = []
    var firstGroupTitle: String?
    /// Fields by their hyperoslo id (`tickets[:index].total` for a template's), in form order.
    var fields: [String: HyperosloField] = [:]
    /// Sections (dynamic ones too) by id.
    var sections: [String: HyperosloSection] = [:]
    /// `visibleWhen` and `enabledWhen` conditions by the hyperoslo id of what they control.
    var visibility: [String: JSONValue] = [:]
    var enabling: [String: JSONValue] = [:]
    /// `updates` entries by the hyperoslo id of the field they set, with the pointer of the target
    /// each came from (where a problem the engine finds in it is reported).
    var updates: [String: [(entry: JSONValue, pointer: String)]] = [:]
    /// Template sections by id, from `templates.sections`.
    var templates: [String: (fields: [JSONValue], pointer: String)] = [:]
    private var order = 0

    mutating func problem(_ pointer: String, _ code: DefinitionProblem.Code, _ message: String) {
        problems.append(DefinitionProblem(pointer: pointer, code: code, message: message))
    }

    /// A part that Formhouse has no equivalent of.
    mutating func problem(_ pointer: String, _ message: String) {
        problem(pointer, .notCarriedOver, message)
    }

    static func pointer(_ base: String, _ key: String) -> String {
        base + "/" + DefinitionDecoder.escape(key)
    }

    /// Refuses the members of `object` not among `known`, naming each.
    mutating func refuseUnknownKeys(_ object: JSONObject, known: Set<String>, at pointer: String, of what: String) {
        for key in object.keys where !known.contains(key) {
            problem(Self.pointer(pointer, key), "\"\(key)\" on \(what) is not carried over: Formhouse has no equivalent. Remove it to import the form.")
        }
    }

    mutating func convert(_ root: JSONValue) -> [JSONValue] {
        let groups: [JSONValue]
        let groupsPointer: String
        switch root {
        case .array(let items):
            (groups, groupsPointer) = (items, "")
        case .object(let object):
            refuseUnknownKeys(object, known: ["groups", "templates"], at: "", of: "the form")
            guard let items = object["groups"]?.arrayValue else {
                problem("/groups", .missing, "A hyperoslo/Form document is an array of groups, or an object with \"groups\": [...].")
                return []
            }
            (groups, groupsPointer) = (items, "/groups")
            readTemplates(object["templates"])
        default:
            problem("", .invalidType, "A hyperoslo/Form document is an array of groups, or an object with \"groups\": [...]; found \(root.typeName).")
            return []
        }
        let indexed = groups.enumerated().compactMap { i, group in index(group: group, at: "\(groupsPointer)/\(i)") }
        resolveTargets()
        var components: [JSONValue] = []
        for group in indexed { components.append(write(group: group)) }
        return components
    }

    private mutating func readTemplates(_ value: JSONValue?) {
        guard let value, value != .null else { return }
        guard let object = value.objectValue else {
            problem("/templates", .invalidType, "\"templates\" must be an object with \"sections\".")
            return
        }
        refuseUnknownKeys(object, known: ["fields", "sections"], at: "/templates", of: "the templates")
        if let fields = object["fields"], fields != .null, fields.arrayValue?.isEmpty != true {
            problem("/templates/fields", "Field templates are added to a form by app code at run time, which Formhouse does not run: they are not carried over. Remove them, or put the fields in a section.")
        }
        guard let items = object["sections"], items != .null else { return }
        guard let array = items.arrayValue else {
            problem("/templates/sections", .invalidType, "\"templates.sections\" must be an array of sections.")
            return
        }
        for (i, item) in array.enumerated() {
            let pointer = "/templates/sections/\(i)"
            guard let id = item["id"]?.stringValue, let fields = item["fields"]?.arrayValue else {
                problem(pointer, .missing, "A template section needs a string \"id\" and an array of \"fields\".")
                continue
            }
            templates[id] = (fields, pointer)
        }
    }

    // MARK: Indexing

    private mutating func index(group value: JSONValue, at pointer: String) -> HyperosloGroup? {
        guard let object = value.objectValue else {
            problem(pointer, .invalidType, "A group must be an object with \"id\", \"title\" and \"sections\".")
            return nil
        }
        refuseUnknownKeys(object, known: ["id", "title", "sections", "collapsed", "collapsible"], at: pointer, of: "a group")
        if firstGroupTitle == nil { firstGroupTitle = object["title"]?.stringValue }
        var sections: [HyperosloSection] = []
        for (i, item) in (object["sections"]?.arrayValue ?? []).enumerated() {
            if let section = index(section: item, at: "\(pointer)/sections/\(i)") { sections.append(section) }
        }
        if object["sections"]?.arrayValue == nil {
            problem(Self.pointer(pointer, "sections"), .missing, "A group needs \"sections\": an array of sections.")
        }
        return HyperosloGroup(object: object, sections: sections)
    }

    private mutating func index(section value: JSONValue, at pointer: String) -> HyperosloSection? {
        guard let object = value.objectValue, let id = object["id"]?.stringValue else {
            problem(pointer, .missing, "A section must be an object with a string \"id\" and \"fields\".")
            return nil
        }
        refuseUnknownKeys(object, known: ["id", "title", "fields", "type", "action_title"], at: pointer, of: "a section")
        order += 1
        var section = HyperosloSection(id: id, object: object, pointer: pointer, order: order)
        switch object["type"]?.stringValue {
        case nil:
            guard let items = object["fields"]?.arrayValue else {
                problem(Self.pointer(pointer, "fields"), .missing, "A section needs \"fields\": an array of fields.")
                return nil
            }
            section.fields = items.enumerated().compactMap { i, item in
                index(field: item, at: "\(pointer)/fields/\(i)", scope: nil)
            }
        case "dynamic":
            if let items = object["fields"]?.arrayValue, !items.isEmpty {
                problem(Self.pointer(pointer, "fields"), "The items a dynamic section starts with are not carried over: Formhouse's repeating group starts empty. Leave \"fields\" null.")
            }
            guard let template = templates[id] else {
                problem(pointer, .missing, "The dynamic section \"\(id)\" has no template: add {\"id\": \"\(id)\", \"fields\": [...]} to \"templates.sections\".")
                return nil
            }
            section.scope = id
            section.fields = template.fields.enumerated().compactMap { i, item in
                index(field: item, at: "\(template.pointer)/fields/\(i)", scope: id)
            }
        case let other:
            problem(Self.pointer(pointer, "type"), .badValue, "A section's \"type\" is \"dynamic\" or absent, not \(other.map { "\"\($0)\"" } ?? "a non-string").")
            return nil
        }
        if sections[id] != nil {
            problem(Self.pointer(pointer, "id"), .duplicateID, "The section id \"\(id)\" is used twice.")
        }
        sections[id] = section
        return section
    }

    private mutating func index(field value: JSONValue, at pointer: String, scope: String?) -> HyperosloField? {
        guard let object = value.objectValue, let id = object["id"]?.stringValue else {
            problem(pointer, .missing, "A field must be an object with a string \"id\" and a \"type\".")
            return nil
        }
        let name: String
        if let scope {
            let prefix = scope + "[:index]."
            guard id.hasPrefix(prefix), !id.dropFirst(prefix.count).contains(where: { ".[] ".contains($0) }) else {
                problem(Self.pointer(pointer, "id"), .invalidID, "A field of the template \"\(scope)\" must be named \"\(prefix)<name>\", like \"\(prefix)name\".")
                return nil
            }
            name = String(id.dropFirst(prefix.count))
        } else {
            guard !id.isEmpty, !id.contains(where: { ".[] ".contains($0) }) else {
                problem(Self.pointer(pointer, "id"), .invalidID, "The id \"\(id)\" names a place in nested values (with \".\", \"[\" or \"]\"), which is not carried over: use a dynamic section with a template for a list, or a plain id.")
                return nil
            }
            name = id
        }
        order += 1
        let field = HyperosloField(id: id, name: name, scope: scope, object: object, pointer: pointer, order: order)
        if fields[id] != nil {
            problem(Self.pointer(pointer, "id"), .duplicateID, "The field id \"\(id)\" is used twice.")
        }
        fields[id] = field
        return field
    }

    // MARK: Writing

    private mutating func write(group: HyperosloGroup) -> JSONValue {
        var section = JSONObject()
        if let title = group.object["title"] { section.append("title", title) }
        var components: [JSONValue] = []
        for item in group.sections { components.append(write(section: item)) }
        section.append("components", .array(components))
        let extras = Self.extras(group.object, ["id", "collapsed", "collapsible"])
        if !extras.isEmpty { section.append("hyperoslo", .object(extras)) }
        return ["section": .object(section)]
    }

    private mutating func write(section: HyperosloSection) -> JSONValue {
        var props = JSONObject()
        let dynamic = section.scope != nil
        if dynamic { props.append("id", .string(section.id)) }
        if let title = section.object["title"] { props.append("title", title) }
        if dynamic { props.append("repeat", ["min": 0]) }
        if let condition = visibility[section.id] { props.append("visibleWhen", condition) }
        var components: [JSONValue] = []
        for field in section.fields where !field.isRemoveButton {
            if let component = write(field: field) { components.append(component) }
        }
        props.append("components", .array(components))
        var extras = Self.extras(section.object, dynamic ? ["action_title"] : ["id"])
        if let remove = section.fields.first(where: \.isRemoveButton) {
            extras.append("remove_button", .object(Self.extras(remove.object, ["title", "size", "styles"])))
        }
        if !extras.isEmpty { props.append("hyperoslo", .object(extras)) }
        return [dynamic ? "group" : "section": .object(props)]
    }

    /// The members of `object` named in `keys`, kept for clients under `"hyperoslo"`: layout and
    /// looks, which Formhouse does not use but a client may.
    static func extras(_ object: JSONObject, _ keys: [String]) -> JSONObject {
        var kept = JSONObject()
        for key in keys { if let value = object[key] { kept.append(key, value) } }
        return kept
    }
}

/// A group as indexed: layout only, written as a titled section.
struct HyperosloGroup {
    var object: JSONObject
    var sections: [HyperosloSection]
}

/// A section as indexed; a dynamic one has `scope` (its id) and its template's fields.
struct HyperosloSection {
    var id: String
    var object: JSONObject
    var pointer: String
    var order: Int
    var scope: String?
    var fields: [HyperosloField] = []
}

/// A field as indexed: `name` is its Formhouse id (relative to the item in a template).
struct HyperosloField {
    var id: String
    var name: String
    var scope: String?
    var object: JSONObject
    var pointer: String
    var order: Int

    var type: String? { object["type"]?.stringValue }
    var hasFormula: Bool { object["formula"] != nil }

    /// A template's `remove` button: the control that removes an item, which a repeating group
    /// offers of itself.
    var isRemoveButton: Bool {
        scope != nil && name == "remove" && (type == "button" || type == "remove")
    }
}
