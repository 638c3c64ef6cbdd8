import Foundation
import Testing
@testable import FormEngine

/// The hyperoslo/Form importer, on the library's own demo and test forms (Tests/Fixtures/hyperoslo).
@Suite struct HyperosloImportTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/hyperoslo/\(name)")
        return Array(try Data(contentsOf: url))
    }

    static func convert(_ json: String) throws -> JSONValue {
        try HyperosloImport.definition(from: Array(json.utf8))
    }

    static func problems(_ bytes: [UInt8]) -> [String] {
        do {
            _ = try HyperosloImport.definition(from: bytes)
            return []
        } catch {
            return error.problems.map { "\($0.pointer) \($0.code.rawValue)" }
        }
    }

    static func problems(_ json: String) -> [String] { problems(Array(json.utf8)) }

    static func json(_ text: String) throws -> JSONValue { try JSONValue(parsing: Array(text.utf8)) }

    /// A one-section hyperoslo form holding `fields`.
    static func form(_ fields: String) -> String {
        #"[{"id": "g", "title": "G", "sections": [{"id": "s", "fields": [\#(fields)]}]}]"#
    }

    /// The input components of a converted form, walking sections and groups.
    static func inputs(_ definition: JSONValue) -> [String: JSONValue] {
        var found: [String: JSONValue] = [:]
        func walk(_ components: JSONValue?) {
            for component in components?.arrayValue ?? [] {
                guard let (type, props) = component.objectValue.flatMap({ o in o.keys.first.map { ($0, o[$0] ?? .null) } }) else { continue }
                if type == "section" || type == "group" {
                    if type == "group", let id = props["id"]?.stringValue { found[id] = component }
                    walk(props["components"])
                } else if let id = props["id"]?.stringValue {
                    found[id] = component
                }
            }
        }
        walk(definition["components"])
        return found
    }

    @Test func theCalculatedDisplayNameJoinsTheNamesWithASpace() throws {
        let definition = try HyperosloImport.definition(from: Self.fixture("calculated-field.json"), id: "names")
        #expect(definition["id"] == "names")
        #expect(definition["title"] == "Group 1")
        let inputs = Self.inputs(definition)
        #expect(inputs["first_name"] == (try Self.json(#"{"text": {"id": "first_name", "title": "First name", "required": true, "minLength": 2, "hyperoslo": {"size": {"width": 30, "height": 1}}}}"#)))
        #expect(inputs["display_name"]?["text"]?["formula"] == #"first_name & " " & last_name"#)
        #expect(inputs["display_name"]?["text"]?["placeholder"] == "Display name")
    }

    /// The salary total: a select's numeric values plus a bonus. The "update" targets only recompute
    /// the total, which Formhouse does itself, so they need nothing.
    @Test func theSalaryTotalReadsTheSelectsValues() throws {
        let inputs = Self.inputs(try HyperosloImport.definition(from: Self.fixture("number-formula.json")))
        #expect(inputs["base_salary"]?["select"]?["options"] == (try Self.json(#"""
            [{"id": "0", "title": "Salary 1", "value": 100}, {"id": "1", "title": "Salary 2", "value": 200},
             {"id": "2", "title": "Salary 3", "value": 10}]
            """#)))
        #expect(inputs["bonus"]?["decimal"] != nil)
        #expect(inputs["total"]?["decimal"]?["formula"] == "base_salary + bonus")
        // `disabled` is what a formula makes an input anyway: read-only.
        #expect(inputs["total"]?["decimal"]?["enabledWhen"] == nil)
    }

    @Test func ticketsAreARepeatingGroupWithPerItemTotals() throws {
        let definition = try HyperosloImport.definition(from: Self.fixture("dynamic-formulas.json"))
        let inputs = Self.inputs(definition)
        let tickets = try #require(inputs["tickets"]?["group"])
        #expect(tickets["repeat"] == ["min": 0])
        #expect(tickets["hyperoslo"] == (try Self.json(#"{"action_title": "ADD TICKET ✛", "remove_button": {"title": "Remove", "size": {"width": 20, "height": 1}}}"#)))
        #expect(tickets["components"]?.arrayValue?.compactMap { $0.objectValue?.values.first?["id"]?.stringValue } == ["quantity", "price", "total"])
        #expect(inputs["quantity"] == (try Self.json(#"""
            {"decimal": {"id": "quantity", "title": "Quantity", "required": true, "minValue": 1, "maxValue": 100, "default": 1,
                         "hyperoslo": {"size": {"width": 20, "height": 1}}}}
            """#)))
        #expect(inputs["total"]?["decimal"]?["formula"] == "quantity * price")
    }

    /// The demos behave once imported: the engine computes what hyperoslo/Form computed.
    @Test func theImportedDemosComputeAsTheLibraryDid() throws {
        let names = try FormDefinition(json: try HyperosloImport.definition(from: Self.fixture("calculated-field.json"), id: "names").serialized())
        let named = try Fixtures.validate(names, #"{"values": {"first_name": "Ana", "last_name": "Lima", "display_name": "ignored"}}"#)
        #expect(named.isValid, "\(named.errors)")
        #expect(named.values["display_name"] == "Ana Lima")

        let salary = try FormDefinition(json: try HyperosloImport.definition(from: Self.fixture("number-formula.json"), id: "salary").serialized())
        let paid = try Fixtures.validate(salary, #"{"values": {"base_salary": "1", "bonus": 12.5}}"#)
        #expect(paid.computed["total"] == .number(212.5), "\(paid.computed) \(paid.errors)")

        let tickets = try FormDefinition(json: try HyperosloImport.definition(from: Self.fixture("dynamic-formulas.json"), id: "tickets").serialized())
        let bought = try Fixtures.validate(tickets, #"{"values": {"tickets": [{"quantity": 2, "price": 10.1}, {"quantity": 3, "price": 1.1}]}}"#)
        #expect(bought.computed["tickets[0].total"] == .number(20.2), "\(bought.computed) \(bought.errors)")
        #expect(bought.computed["tickets[1].total"] == .number(3.3), "exactly: not 3.3000000000000003")
        let totals = bought.values["tickets"]?.arrayValue?.compactMap { $0["total"] }
        #expect(totals == [.number(20.2), .number(3.3)])
    }

    /// What only the engine finds (text times a number) points into the import too, at the formula.
    @Test func aProblemTheEngineFindsPointsIntoTheImport() {
        let json = Self.form(#"""
            {"id": "name", "title": "Name", "type": "text"},
            {"id": "double", "title": "Double", "type": "float", "formula": "$name * 2"}
            """#)
        let problems: [DefinitionProblem]
        do {
            _ = try HyperosloImport.definition(from: Array(json.utf8))
            problems = []
        } catch {
            problems = error.problems
        }
        #expect(problems.map(\.pointer) == ["/0/sections/0/fields/1/formula"], "\(problems)")
        #expect(problems.first?.code == .badFormula)
    }

    /// The README's targets: part time (the default) hides the bonus, full time shows it.
    @Test func showAndHideTargetsBecomeVisibleWhen() throws {
        let converted = try HyperosloImport.definition(from: Self.fixture("readme-targets.json"))
        let inputs = Self.inputs(converted)
        #expect(inputs["bonus"]?["integer"]?["visibleWhen"] == ["field": "employment_type", "notEquals": "0"])
        #expect(inputs["employment_type"]?["select"]?["options"]?.arrayValue?.first?["default"] == true)
        let form = try FormDefinition(json: converted.serialized())
        #expect(try Fixtures.validate(form, #"{"values": {"employment_type": "0", "bonus": "lots"}}"#).isValid)
        let fullTime = try Fixtures.validate(form, #"{"values": {"employment_type": 1, "bonus": "lots"}}"#)
        #expect(fullTime.errors.map { "\($0.field) \($0.code)" } == ["bonus integer"])
        #expect(try Fixtures.validate(form, #"{"values": {"employment_type": "1", "bonus": "500"}}"#).values["bonus"] == 500)
    }

    /// What dynamic.json holds that Formhouse cannot carry is named; its dynamic sections, remove
    /// buttons and section target are not among it.
    @Test func refusedPartsAreNamedWithPointersIntoTheImport() throws {
        let refused = Self.problems(try Self.fixture("dynamic.json"))
        #expect(refused == ["/templates/fields notCarriedOver", "/groups/0/sections/0/targets notCarriedOver"])
        // Without those two parts, the rest imports.
        var document = try #require(try JSONSerialization.jsonObject(with: Data(Self.fixture("dynamic.json"))) as? [String: Any])
        var groups = try #require(document["groups"] as? [[String: Any]])
        var sections = try #require(groups[0]["sections"] as? [[String: Any]])
        sections[0]["targets"] = nil
        groups[0]["sections"] = sections
        document["groups"] = groups
        var templates = try #require(document["templates"] as? [String: Any])
        templates["fields"] = NSNull()
        document["templates"] = templates
        let converted = try HyperosloImport.definition(from: Array(try JSONSerialization.data(withJSONObject: document)))
        let inputs = Self.inputs(converted)
        #expect(inputs["companies"]?["group"]?["components"]?.arrayValue?.count == 2)
        let form = try FormDefinition(json: converted.serialized())
        let mr = try Fixtures.validate(form, #"{"values": {"title": "0", "email": "not an email", "contacts": [{"first_name": "A"}]}}"#)
        #expect(mr.errors.map { "\($0.field) \($0.code)" } == ["contacts[0].first_name minLength"])
        let mrs = try Fixtures.validate(form, #"{"values": {"title": "1", "email": "not an email", "companies": [{"phone_number": "12a"}]}}"#)
        #expect(mrs.errors.map { "\($0.field) \($0.code)" } == ["companies[0].phone_number integer", "email email"])
    }

    /// A number with a length is a code of digits, like a card number: text, never rounded.
    @Test func aNumberWithALengthIsTextOfDigits() throws {
        let converted = try Self.convert(Self.form(#"""
            {"id": "card", "type": "number", "validations": {"required": true, "min_length": 12, "max_length": 19}},
            {"id": "guests", "type": "number", "validations": {"min_value": 1, "max_value": 9}}
            """#))
        let inputs = Self.inputs(converted)
        #expect(inputs["card"] == ["numerical": ["id": "card", "required": true, "minLength": 12, "maxLength": 19]])
        #expect(inputs["guests"] == ["integer": ["id": "guests", "minValue": 1, "maxValue": 9]])
        let form = try FormDefinition(json: converted.serialized())
        let card = "0004111111111111111"
        #expect(try Fixtures.validate(form, #"{"values": {"card": "\#(card)"}}"#).values["card"] == .string(card))
        #expect(try Fixtures.validate(form, #"{"values": {"card": "\#(card)1"}}"#).errors.map(\.code) == [.maxLength])
        #expect(try Fixtures.validate(form, #"{"values": {"card": "4111 1111 1111"}}"#).errors.map(\.code) == [.numerical])
    }

    /// `format` searches anywhere in the value, in any letter case, as hyperoslo/Form does.
    @Test func formatBecomesASearch() throws {
        let converted = try Self.convert(Self.form(#"""
            {"id": "email", "type": "email", "validations": {"format": "[\\w._%+-]+@[\\w.-]+\\.\\w{2,}", "required": true}}
            """#))
        #expect(Self.inputs(converted)["email"]?["email"]?["search"] == #"[\w._%+-]+@[\w.-]+\.\w{2,}"#)
        let form = try FormDefinition(json: converted.serialized())
        #expect(try Fixtures.validate(form, #"{"values": {"email": "Write to JOHN@HYPER.NO today"}}"#).isValid)
        #expect(try Fixtures.validate(form, #"{"values": {"email": "john at hyper"}}"#).errors.map(\.code) == [.email])
        #expect(Self.problems(Self.form(#"{"id": "t", "type": "text", "validations": {"format": "a)|(b"}}"#)) == ["/0/sections/0/fields/0/validations/format badRegex"])
        // The offset is in the format as written, not in the pattern it is wrapped in.
        do {
            _ = try HyperosloImport.definition(from: Array(Self.form(#"{"id": "t", "type": "text", "validations": {"format": "ab("}}"#).utf8))
            Issue.record("an unclosed group in a format was imported")
        } catch {
            #expect(error.problems.map(\.message) == ["The format does not compile (at 2): Unterminated group: add ')'."])
        }
    }

    @Test func typesMapOrAreRefused() throws {
        // Ids are read first, so an id problem comes before the fields' own.
        let converted = try Self.convert(Self.form(#"""
            {"id": "a", "type": "name"}, {"id": "b", "type": "password"}, {"id": "c", "type": "float"},
            {"id": "d", "type": "count", "value": 0}, {"id": "e", "type": "date"}, {"id": "f", "type": "switch", "value": false},
            {"id": "g", "type": "segment", "values": [{"id": "in_house", "title": "In-house", "info": "In-house employee", "default": true}, {"id": "remote", "title": "Remote"}]},
            {"id": "h", "type": "select", "values": [{"id": true, "title": "Ja"}, {"id": false, "title": "Nei"}]}
            """#))
        let types = Self.inputs(converted).mapValues { $0.objectValue?.keys.first ?? "" }
        #expect(types == ["a": "text", "b": "password", "c": "decimal", "d": "count", "e": "date", "f": "switch", "g": "select", "h": "select"])
        #expect(Self.inputs(converted)["g"]?["select"]?["options"]?.arrayValue?.first == ["id": "in_house", "title": "In-house", "description": "In-house employee", "default": true])
        #expect(Self.inputs(converted)["h"]?["select"]?["options"]?.arrayValue?.map { $0["id"] } == ["true", "false"])
        _ = try FormDefinition(json: converted.serialized())
        #expect(Self.problems(Self.form(#"""
            {"id": "a", "type": "spacer"}, {"id": "b", "type": "button"}, {"id": "c", "type": "image"}, {"id": "d", "type": "time"},
            {"id": "e", "type": "date", "validations": {"compare_to": "x", "compare_rule": ">", "min_length": 2}},
            {"id": "f", "type": "switch", "validations": {"required": true}}, {"id": "g", "type": "text", "colour": "red"},
            {"id": "h", "type": "text", "hidden": true}, {"id": "i", "type": "text", "disabled": true}, {"id": "j.k", "type": "text"}
            """#)) == [
            "/0/sections/0/fields/9/id invalidID",
            "/0/sections/0/fields/0/type notCarriedOver", "/0/sections/0/fields/1/type notCarriedOver",
            "/0/sections/0/fields/2/type unknownType", "/0/sections/0/fields/3/type unknownType",
            "/0/sections/0/fields/4/validations/compare_to notCarriedOver", "/0/sections/0/fields/4/validations/compare_rule notCarriedOver",
            "/0/sections/0/fields/4/validations/min_length notCarriedOver", "/0/sections/0/fields/5/validations/required notCarriedOver",
            "/0/sections/0/fields/6/colour notCarriedOver", "/0/sections/0/fields/7/hidden notCarriedOver",
            "/0/sections/0/fields/8/disabled notCarriedOver",
        ])
        #expect(Self.problems("{") == [" malformedJSON"])
    }

    @Test func boundsMustBeNumbersAndLengthsWholeOnes() {
        #expect(Self.problems(Self.form(#"""
            {"id": "a", "type": "text", "validations": {"max_length": 2.5}}, {"id": "b", "type": "text", "validations": {"min_length": -1}},
            {"id": "c", "type": "float", "validations": {"min_value": -1.5, "max_value": "9"}}
            """#)) == ["/0/sections/0/fields/0/validations/max_length invalidType", "/0/sections/0/fields/1/validations/min_length invalidType",
                       "/0/sections/0/fields/2/validations/max_value invalidType"])
    }

    @Test func formulasKeepArithmeticAndNameTheirFields() throws {
        let inputs = Self.inputs(try Self.convert(Self.form(#"""
            {"id": "a", "type": "float"}, {"id": "b", "type": "number"},
            {"id": "c", "type": "float", "formula": "($a + b) * 2 - $b / 4"}, {"id": "d", "type": "text", "formula": "a"}
            """#)))
        #expect(inputs["c"]?["decimal"]?["formula"] == "( a + b ) * 2 - b / 4")
        #expect(inputs["d"]?["text"]?["formula"] == "a")
        // An id that is not a formula name is written in braces: never read as a subtraction.
        let dashed = Self.inputs(try Self.convert(Self.form(#"""
            {"id": "a", "type": "float"}, {"id": "b", "type": "float"}, {"id": "a-b", "type": "float"},
            {"id": "first-name", "type": "text"}, {"id": "nome_é", "type": "text"},
            {"id": "c", "type": "float", "formula": "$a-b * 2"}, {"id": "d", "type": "text", "formula": "first-name nome_é"}
            """#)))
        #expect(dashed["c"]?["decimal"]?["formula"] == "{a-b} * 2")
        #expect(dashed["d"]?["text"]?["formula"] == #"{first-name} & " " & {nome_é}"#)
        #expect(Self.problems(Self.form(#"""
            {"id": "a", "type": "float", "formula": "$nothing + 1"}, {"id": "b", "type": "float", "formula": "sqrt(a) % 2"},
            {"id": "c", "type": "float", "formula": "a b"}, {"id": "d", "type": "date", "formula": "a"}
            """#)) == ["/0/sections/0/fields/0/formula unknownField", "/0/sections/0/fields/1/formula notCarriedOver",
                       "/0/sections/0/fields/2/formula notCarriedOver", "/0/sections/0/fields/3/formula notCarriedOver"])
    }

    @Test func targetsBecomeConditionsOnWhatTheyControl() throws {
        let inputs = Self.inputs(try Self.convert(Self.form(#"""
            {"id": "kind", "type": "select", "values": [
              {"id": 0, "title": "A", "targets": [{"id": "extra", "type": "field", "action": "show"}, {"id": "note", "type": "field", "action": "disable"}]},
              {"id": 1, "title": "B", "targets": [{"id": "extra", "type": "field", "action": "show"}, {"id": "note", "type": "field", "action": "disable"}]},
              {"id": 2, "title": "C", "targets": [{"id": "extra", "type": "field", "action": "hide"}, {"id": "note", "type": "field", "action": "enable"}]}]},
            {"id": "size", "type": "number", "targets": [{"id": "why", "type": "field", "action": "hide", "condition": "$size == 3"}]},
            {"id": "extra", "type": "text", "hidden": true},
            {"id": "note", "type": "text"},
            {"id": "why", "type": "text"}
            """#)))
        #expect(inputs["extra"]?["text"]?["visibleWhen"] == ["field": "kind", "in": ["0", "1"]])
        #expect(inputs["note"]?["text"]?["enabledWhen"] == ["all": [["field": "kind", "notEquals": "0"], ["field": "kind", "notEquals": "1"]]])
        #expect(inputs["why"]?["text"]?["visibleWhen"] == ["field": "size", "notEquals": 3])
    }

    @Test func targetsThatSayNoStateAreRefused() {
        #expect(Self.problems(Self.form(#"""
            {"id": "later", "type": "text"},
            {"id": "kind", "type": "select", "values": [{"id": 0, "title": "A", "targets": [
              {"id": "later", "type": "field", "action": "hide"},
              {"id": "other", "type": "field", "action": "hide", "condition": "$kind == 0"}]}]},
            {"id": "flag", "type": "switch", "targets": [{"id": "other", "type": "field", "action": "hide"},
              {"id": "other", "type": "field", "action": "show", "condition": "$flag == true"},
              {"id": "last", "type": "field", "action": "show", "condition": "length($flag) > 2"}]},
            {"id": "other", "type": "text"}, {"id": "last", "type": "text"}
            """#)) == [
            "/0/sections/0/fields/1/values/0/targets/1/condition notCarriedOver", "/0/sections/0/fields/2/targets/0 notCarriedOver",
            "/0/sections/0/fields/2/targets/2/condition notCarriedOver",
            "/0/sections/0/fields/1/values/0/targets/0 forwardReference",
        ])
        // Two fields deciding one target: hyperoslo/Form applies whichever ran last.
        #expect(Self.problems(Self.form(#"""
            {"id": "a", "type": "select", "values": [{"id": 0, "title": "A", "targets": [{"id": "t", "type": "field", "action": "hide"}]}]},
            {"id": "b", "type": "select", "values": [{"id": 0, "title": "B", "targets": [{"id": "t", "type": "field", "action": "show"}]}]},
            {"id": "t", "type": "text"}
            """#)) == ["/0/sections/0/fields/1/values/0/targets/0 notCarriedOver"])
    }

    /// A field's `value`, the one it is first shown with, is its `default`; a dropdown's marks that value.
    @Test func aFieldsFirstValueIsItsDefault() throws {
        let inputs = Self.inputs(try Self.convert(Self.form(#"""
            {"id": "kind", "type": "select", "value": 1, "values": [{"id": 0, "title": "A"}, {"id": 1, "title": "B"}]},
            {"id": "n", "type": "number", "value": 3}, {"id": "on", "type": "switch", "value": true}
            """#)))
        #expect(inputs["kind"]?["select"]?["options"] == [["id": "0", "title": "A"], ["id": "1", "title": "B", "default": true]])
        #expect(inputs["n"]?["integer"]?["default"] == 3 && inputs["on"]?["switch"]?["default"] == true)
        #expect(Self.problems(Self.form(#"""
            {"id": "kind", "type": "select", "value": 2, "values": [{"id": 0, "title": "A"}]},
            {"id": "other", "type": "select", "value": 1, "values": [{"id": 0, "title": "A", "default": true}, {"id": 1, "title": "B"}]},
            {"id": "a", "type": "float"}, {"id": "t", "type": "float", "formula": "$a * 2", "value": 0}
            """#)) == ["/0/sections/0/fields/0/value badValue", "/0/sections/0/fields/1/values/1/id badValue", "/0/sections/0/fields/3/value notCarriedOver"])
        // A value the field's rules refuse is found by the engine, at the field.
        #expect(Self.problems(Self.form(#"{"id": "n", "type": "number", "value": "three"}"#)) == ["/0/sections/0/fields/0/value badValue"])
    }

    /// `update` and `clear` run when the value changes: each becomes an entry of the `updates` of the
    /// field it sets, which a renderer applies as hyperoslo/Form did.
    @Test func updateAndClearTargetsBecomeUpdatesOfTheFieldTheySet() throws {
        let inputs = Self.inputs(try Self.convert(Self.form(#"""
            {"id": "plan", "type": "select", "values": [
              {"id": 0, "title": "Free", "targets": [{"id": "seats", "type": "field", "action": "update", "target_value": 1},
                                                     {"id": "coupon", "type": "field", "action": "clear"}]},
              {"id": 1, "title": "Team", "targets": [{"id": "level", "type": "field", "action": "update", "target_value": 2},
                                                     {"id": "total", "type": "field", "action": "update"}]}]},
            {"id": "gift", "type": "switch", "targets": [{"id": "coupon", "type": "field", "action": "update", "target_value": "GIFT", "condition": "$gift == true"}]},
            {"id": "seats", "type": "number"},
            {"id": "coupon", "type": "text"},
            {"id": "level", "type": "select", "values": [{"id": 1, "title": "One"}, {"id": 2, "title": "Two"}]},
            {"id": "total", "type": "float", "formula": "$seats * 10"}
            """#)))
        #expect(inputs["seats"]?["integer"]?["updates"] == [["when": ["field": "plan", "equals": "0"], "value": 1]])
        #expect(inputs["coupon"]?["text"]?["updates"] == [["when": ["field": "plan", "equals": "0"], "value": nil],
                                                          ["when": ["field": "gift", "equals": true], "value": "GIFT"]])
        // A dropdown is set by the id of its value, which Formhouse keeps as text.
        #expect(inputs["level"]?["select"]?["updates"] == [["when": ["field": "plan", "equals": "1"], "value": "2"]])
        // Recomputing a formula is what Formhouse does on every change anyway.
        #expect(inputs["total"]?["decimal"]?["updates"] == nil)
    }

    @Test func updatesThatCannotBeCarriedOverAreRefused() {
        #expect(Self.problems(Self.form(#"""
            {"id": "early", "type": "text"},
            {"id": "a", "type": "select", "values": [{"id": 0, "title": "A", "targets": [
              {"id": "s", "type": "section", "action": "clear"},
              {"id": "t", "type": "field", "action": "update"},
              {"id": "sum", "type": "field", "action": "update", "target_value": 3},
              {"id": "t", "type": "field", "action": "update", "target_value": "x", "condition": "$a == 0"},
              {"id": "early", "type": "field", "action": "update", "target_value": "x"}]}]},
            {"id": "b", "type": "text", "targets": [{"id": "t", "type": "field", "action": "clear"},
              {"id": "t", "type": "field", "action": "clear", "condition": "$a == 0"}]},
            {"id": "t", "type": "text"}, {"id": "n", "type": "number"}, {"id": "sum", "type": "float", "formula": "$n + 1"}
            """#)) == [
            "/0/sections/0/fields/1/values/0/targets/0 notCarriedOver", "/0/sections/0/fields/1/values/0/targets/1 notCarriedOver",
            "/0/sections/0/fields/1/values/0/targets/2 notCarriedOver", "/0/sections/0/fields/1/values/0/targets/3/condition notCarriedOver",
            "/0/sections/0/fields/1/values/0/targets/4 forwardReference",
            "/0/sections/0/fields/2/targets/0 notCarriedOver", "/0/sections/0/fields/2/targets/1/condition notCarriedOver",
        ])
        // A value the field's own rules refuse is found by the engine and reported at the target.
        #expect(Self.problems(Self.form(#"""
            {"id": "a", "type": "select", "values": [{"id": 0, "title": "A", "targets": [{"id": "n", "type": "field", "action": "update", "target_value": "many"}]}]},
            {"id": "n", "type": "number"}
            """#)) == ["/0/sections/0/fields/0/values/0/targets/0 badValue"])
    }
}
