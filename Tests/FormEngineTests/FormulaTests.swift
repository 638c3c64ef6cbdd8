import Foundation
import SeededRandom
import Testing
@testable import FormEngine

/// Computed inputs: the grammar, the types, empties, exact decimals, limits and definition errors.
@Suite struct FormulaTests {
    /// A form with number inputs `a`, `b`, text `s`, `t`, and a computed `r` of `type` with `formula`.
    private func form(_ formula: String, type: String = "decimal", extra: String = "") throws -> FormDefinition {
        let escaped = formula.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return try Fixtures.definition(#"""
        {"title": "T", "components": [
          {"decimal": {"id": "a"}}, {"decimal": {"id": "b"}}, {"text": {"id": "s"}}, {"text": {"id": "t"}},
          {"switch": {"id": "on"}},
          {"\#(type)": {"id": "r", "formula": "\#(escaped)"\#(extra)}}
        ]}
        """#)
    }

    /// The computed value of `r` for `values`, as `/validate` answers it.
    private func compute(_ formula: String, type: String = "decimal", _ values: String = "{}") throws -> JSONValue? {
        let result = try Fixtures.validate(try form(formula, type: type), #"{"values": \#(values)}"#)
        return result.computed["r"]
    }

    private func problems(_ formula: String, type: String = "decimal") -> [String] {
        let escaped = formula.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return Fixtures.problems(#"""
        {"title": "T", "components": [{"decimal": {"id": "a"}}, {"text": {"id": "s"}}, {"select": {"id": "m", "multiple": true, "options": [{"id": "x"}]}},
          {"\#(type)": {"id": "r", "formula": "\#(escaped)"}}]}
        """#).map { "\($0.pointer) \($0.code.rawValue): \($0.message)" }
    }

    @Test func everyOperator() throws {
        let values = #"{"a": 7, "b": 2, "s": "x", "t": "y"}"#
        #expect(try compute("a + b", values) == 9)
        #expect(try compute("a - b", values) == 5)
        #expect(try compute("a * b", values) == 14)
        #expect(try compute("a / b", values) == 3.5)
        #expect(try compute("-a", values) == -7)
        #expect(try compute("--a", values) == 7)
        #expect(try compute("s & t & a", type: "text", values) == "xy7")
        for (formula, expected) in [("a = 7", "yes"), ("a <> 7", "no"), ("a < 7", "no"), ("a <= 7", "yes"),
                                    ("a > 2", "yes"), ("a >= 8", "no"), ("s = \"x\"", "yes"), ("s < t", "yes"), ("on = on", "no")] {
            #expect(try compute("if(\(formula), \"yes\", \"no\")", type: "text", #"{"a": 7, "s": "x", "t": "y", "on": false}"#)
                    == (formula == "on = on" ? "yes" : .string(expected)), "\(formula)")
        }
    }

    /// `*` and `/` bind tighter than `+` and `-`, which bind tighter than `&`, then comparisons;
    /// binary operators group to the left; unary minus binds tightest.
    @Test func precedenceAndAssociativity() throws {
        #expect(try compute("1 + 2 * 3") == 7)
        #expect(try compute("(1 + 2) * 3") == 9)
        #expect(try compute("10 - 4 - 3") == 3)
        #expect(try compute("64 / 4 / 2") == 8)
        #expect(try compute("-2 * 3 + 1") == -5)
        #expect(try compute("2 - -3") == 5)
        #expect(try compute("1 + 2 & 3 * 4", type: "text") == "312")
        #expect(try compute("if(1 + 1 = 2, 1, 0)") == 1)
        #expect(try compute("if(\"a\" & \"b\" = \"ab\", 1, 0)") == 1)
    }

    @Test func functions() throws {
        let values = #"{"a": 7, "b": 2}"#
        #expect(try compute("sum(a, b, 1)", values) == 10)
        #expect(try compute("min(a, b, 5)", values) == 2)
        #expect(try compute("max(a, b, 5)", values) == 7)
        #expect(try compute("round(2.5, 0)") == 3)
        #expect(try compute("round(-2.5, 0)") == -3)
        #expect(try compute("round(0.125, 2)") == 0.13)
        #expect(try compute("round(1 / 3, 4)") == 0.3333)
        #expect(try compute("if(a > b, a, b)", values) == 7)
        #expect(try compute("if(on, 1, 2)", #"{"on": true}"#) == 1)
        #expect(try compute("concat(\"n\", a, \"-\", 0.50)", type: "text", values) == "n7-0.5")
        #expect(try compute("\"say \\\"hi\\\"\\n\"", type: "text") == "say \"hi\"\n")
    }

    @Test func exactDecimals() throws {
        #expect(try compute("0.1 + 0.2") == 0.3)
        #expect(try compute("a + b", #"{"a": 0.1, "b": 0.2}"#) == 0.3)
        #expect(try compute("a * 3", type: "text", #"{"a": "19.99"}"#) == "59.97")
        #expect(try compute("1 / 3", type: "text") == "0.33333333333333333333333333333333333333")
        #expect(try compute("123456789012345678.25 + 0.5", type: "text") == "123456789012345678.75")
    }

    /// A quotient that never ends is stored by a `decimal` as the nearest `Double`, as a typed number
    /// is, not refused as too precise; its own rules still apply, and an `integer` still wants a whole one.
    @Test func aQuotientThatNeverEnds() throws {
        let definition = try Fixtures.definition(#"""
            {"title": "T", "components": [{"decimal": {"id": "a"}}, {"decimal": {"id": "third", "formula": "a / 3"}},
             {"decimal": {"id": "cents", "maxDecimalPlaces": 2, "formula": "a / 3"}}, {"decimal": {"id": "rounded", "maxDecimalPlaces": 2, "formula": "round(a / 3, 2)"}},
             {"integer": {"id": "whole", "formula": "a / 3"}}, {"decimal": {"id": "tiny", "formula": "a / 3000000"}},
             {"decimal": {"id": "huge", "formula": "a * 1000000000000000000000"}}]}
            """#)
        let result = try Fixtures.validate(definition, #"{"values": {"a": 10}}"#)
        #expect(result.values["third"] == .number(10.0 / 3) && result.values["rounded"] == 3.33)
        // Very small and very large results too, which a Double writes with an exponent.
        #expect(result.values["tiny"] == .number(10.0 / 3_000_000) && result.values["huge"] == .number(1e22))
        #expect(result.errors.map { "\($0.field) \($0.code.rawValue)" }.sorted() == ["cents decimalPlaces", "whole integer"])
    }

    /// An empty operand (an absent input) makes the result empty; sum, min and max skip empties;
    /// a division by zero and a result past 10^30 are empty.
    @Test func empties() throws {
        #expect(try compute("a + b", #"{"a": 1}"#) == .null)
        #expect(try compute("s & \"x\"", type: "text") == .null)
        #expect(try compute("concat(s, \"x\")", type: "text") == .null)
        #expect(try compute("sum(a, b)", #"{"a": 1}"#) == 1)
        #expect(try compute("sum(a, b)") == 0)
        #expect(try compute("min(a, b)") == .null)
        #expect(try compute("max(a, b, 3)", #"{"b": 4}"#) == 4)
        #expect(try compute("if(a > 1, 1, 2)") == .null)
        #expect(try compute("if(1 > 0, 1, a)") == 1)
        #expect(try compute("a / b", #"{"a": 1, "b": 0}"#) == .null)
        #expect(try compute("a / 0", #"{"a": 1}"#) == .null)
        #expect(try compute("999999999999999999999999999999 + 1") == .null)
        #expect(try compute("a * a * a", #"{"a": 1e15}"#) == .null)
        #expect(try compute("a", #"{"a": 1e300}"#) == .null)
        let result = try Fixtures.validate(try form("a + b"), #"{"values": {"a": 1}}"#)
        #expect(result.values["r"] == nil && result.isValid)
    }

    /// A value sent for a computed input is ignored; the computed one is checked by the input's own
    /// rules and stored.
    @Test func theComputedValueIsCheckedAndStored() throws {
        let total = try form("a * b", extra: #", "maxValue": 100, "messages": {"maxValue": "Too much."}"#)
        let ok = try Fixtures.validate(total, #"{"values": {"a": 1.5, "b": 3, "r": 999}}"#)
        #expect(ok.isValid && ok.values["r"] == 4.5 && ok.computed["r"] == 4.5)
        let over = try Fixtures.validate(total, #"{"values": {"a": 50, "b": 3, "r": 1}}"#)
        #expect(over.errors.map(\.field) == ["r"] && over.errors.map(\.message) == ["Too much."])
        #expect(over.values["r"] == nil && over.computed["r"] == 150)
        let integer = try form("a / b", type: "integer")
        #expect(try Fixtures.validate(integer, #"{"values": {"a": 5, "b": 2}}"#).errors.map(\.code) == [.integer])
        #expect(try Fixtures.validate(integer, #"{"values": {"a": 6, "b": 2}}"#).values["r"] == 3)
        let text = try form("a / b", type: "text")
        #expect(try Fixtures.validate(text, #"{"values": {"a": 1, "b": 4}}"#).values["r"] == "0.25")
        let required = try form("a + b", extra: #", "required": true"#)
        #expect(try Fixtures.validate(required, #"{"values": {"r": 3}}"#).errors.map(\.code) == [.required])
    }

    /// A group whose only values were computed and came out empty is dropped, as any empty group is.
    @Test func aGroupLeftEmptyIsDropped() throws {
        let form = try Fixtures.definition(#"""
        {"title": "T", "components": [{"decimal": {"id": "a"}},
          {"group": {"id": "g", "components": [{"decimal": {"id": "x", "formula": "a * 2"}}, {"decimal": {"id": "y", "formula": "a + 1"}}]}}]}
        """#)
        #expect(try Fixtures.validate(form, #"{"values": {}}"#).values == [:])
        #expect(try Fixtures.validate(form, #"{"values": {"a": 1}}"#).values == ["a": 1, "g": ["x": 2, "y": 2]])
    }

    @Test func hiddenComputedInputsAreNotComputed() throws {
        let form = try Fixtures.definition(#"""
        {"title": "T", "components": [{"switch": {"id": "show"}}, {"decimal": {"id": "a"}},
          {"decimal": {"id": "r", "formula": "a * 2", "visibleWhen": {"field": "show", "equals": true}}}]}
        """#)
        let hidden = try Fixtures.validate(form, #"{"values": {"a": 2, "r": 9}}"#)
        #expect(hidden.values["r"] == nil && hidden.computed.isEmpty && hidden.isValid)
        #expect(try Fixtures.validate(form, #"{"values": {"show": true, "a": 2}}"#).values["r"] == 4)
    }

    @Test func selectOptionValues() throws {
        let form = try Fixtures.definition(#"""
        {"title": "T", "components": [
          {"select": {"id": "size", "options": [{"id": "s", "value": 9.9}, {"id": "l", "value": 14.5}, {"id": "free"}]}},
          {"select": {"id": "plain", "options": [{"id": "x"}]}},
          {"integer": {"id": "n"}},
          {"decimal": {"id": "r", "formula": "size * n"}},
          {"text": {"id": "label", "formula": "plain & \":\" & size"}}]}
        """#)
        let result = try Fixtures.validate(form, #"{"values": {"size": "l", "plain": "x", "n": 2}}"#)
        #expect(result.values["size"] == "l" && result.values["r"] == 29 && result.values["label"] == "x:14.5")
        #expect(try Fixtures.validate(form, #"{"values": {"size": "free", "n": 2}}"#).values["r"] == nil)
        let bad = Fixtures.problems(#"{"title": "T", "components": [{"select": {"id": "m", "options": [{"id": "a", "value": "x"}]}}, {"decimal": {"id": "r", "formula": "m"}}]}"#)
        #expect(bad.map(\.code) == [.badFormula])
    }

    /// `numerical` digits and `count` read as numbers, a `switch` as a truth value, a `date` as text;
    /// a computed value is read by later formulas as it was stored.
    @Test func howInputsRead() throws {
        let form = try Fixtures.definition(#"""
        {"title": "T", "components": [{"numerical": {"id": "n"}}, {"count": {"id": "c"}}, {"date": {"id": "d"}},
          {"text": {"id": "label", "formula": "n + c & \" on \" & d"}},
          {"text": {"id": "shout", "formula": "label & \"!\""}},
          {"integer": {"id": "big", "formula": "n * 1000"}}]}
        """#)
        let result = try Fixtures.validate(form, #"{"values": {"n": "0042", "c": 3, "d": "2026-11-27"}}"#)
        #expect(result.values["label"] == "45 on 2026-11-27" && result.values["shout"] == "45 on 2026-11-27!")
        #expect(result.values["n"] == "0042" && result.values["big"] == 42_000)
        let huge = try Fixtures.validate(form, #"{"values": {"n": "9007199254740993"}}"#)
        #expect(huge.errors.map(\.code) == [.integer] && huge.computed["big"] == .number(9_007_199_254_740_993_000))
    }

    /// Per-item totals in a repeat (paths relative to the item, outer inputs by their own paths), and
    /// a grand total over the column.
    @Test func repeatTotalsAndAGrandTotal() throws {
        let form = try Fixtures.definition(#"""
        {"title": "T", "components": [
          {"decimal": {"id": "grand", "formula": "sum(items[].total) * (1 + tax)"}},
          {"decimal": {"id": "tax"}},
          {"group": {"id": "items", "repeat": {"min": 0, "max": 2000}, "components": [
            {"decimal": {"id": "price"}}, {"integer": {"id": "qty"}},
            {"decimal": {"id": "total", "formula": "price * qty"}},
            {"text": {"id": "line", "formula": "qty & \" × \" & price & \" of \" & count"}}]}},
          {"integer": {"id": "count", "formula": "sum(items[].qty)"}}]}
        """#)
        let result = try Fixtures.validate(form, #"""
        {"values": {"tax": 0.1, "items": [{"price": 0.1, "qty": 3, "total": 1000}, {"price": 2.5, "qty": 2}, {"price": 1}]}}
        """#)
        #expect(result.isValid, "\(result.errors)")
        #expect(result.values["items"] == [["price": 0.1, "qty": 3, "total": 0.3, "line": "3 × 0.1 of 5"],
                                           ["price": 2.5, "qty": 2, "total": 5, "line": "2 × 2.5 of 5"], ["price": 1]])
        #expect(result.values["grand"] == 5.83 && result.values["count"] == 5)
        #expect(result.computed["items[0].total"] == 0.3 && result.computed["items[2].total"] == .null)
    }

    /// Errors of computed inputs in a repeat carry the submitted item index.
    @Test func errorsInARepeatNameTheItem() throws {
        let form = try Fixtures.definition(#"""
        {"title": "T", "components": [{"group": {"id": "items", "repeat": {"min": 0}, "components": [
          {"decimal": {"id": "price"}}, {"decimal": {"id": "total", "formula": "price * 2", "maxValue": 10}}]}}]}
        """#)
        let result = try Fixtures.validate(form, #"{"values": {"items": [{"price": 1}, null, {"price": 6}]}}"#)
        #expect(result.errors.map(\.field) == ["items[2].total"])
    }

    /// A value sent only for a computed input does not make an optional repeat item count.
    @Test func aComputedValueAloneLeavesAnItemBlank() throws {
        let form = try Fixtures.definition(#"""
        {"title": "T", "components": [{"group": {"id": "items", "repeat": {"min": 0}, "components": [
          {"decimal": {"id": "price", "required": true}}, {"section": {"components": [{"decimal": {"id": "total", "formula": "price * 2"}}]}}]}}]}
        """#)
        let result = try Fixtures.validate(form, #"{"values": {"items": [{"price": 1, "total": 7}, {"total": 5}, {"total": ""}]}}"#)
        #expect(result.isValid, "\(result.errors)")
        #expect(result.values["items"] == [["price": 1, "total": 2]])
    }

    /// A definition stored before `formula` and `enabledWhen` had a meaning may carry them as extras
    /// of its own: read back, it is served as it was; uploaded, it is refused.
    @Test func storedDefinitionsWithOldExtrasStillRead() throws {
        let json = #"{"title": "T", "components": [{"email": {"id": "e", "formula": 5, "enabledWhen": "always"}}, {"text": {"id": "t", "formula": "nope + 1"}}]}"#
        #expect(Fixtures.problems(json).map(\.code) == [.badCondition, .notApplicable, .unknownField])
        let stored = try FormDefinition(json: Array(json.utf8), reading: .stored)
        let result = stored.validate(try Fixtures.submission(#"{"values": {"e": "a@b.co", "t": "typed"}}"#))
        #expect(result.isValid && result.values == ["e": "a@b.co", "t": "typed"] && result.computed.isEmpty)
    }

    @Test func aThousandItemsAreComputedInLinearSteps() throws {
        let form = try Fixtures.definition(#"""
        {"title": "T", "components": [{"group": {"id": "items", "repeat": {"min": 0, "max": 5000}, "components": [
          {"decimal": {"id": "price"}}, {"decimal": {"id": "total", "formula": "price * 2"}}]}},
          {"decimal": {"id": "grand", "formula": "sum(items[].total) + max(items[].price)"}}]}
        """#)
        func steps(_ n: Int) throws -> (Int, JSONValue?) {
            let items = (0..<n).map { #"{"price": \#($0 % 10)}"# }.joined(separator: ",")
            var evaluator = FormulaEvaluator()
            let result = form.validate(try Fixtures.submission(#"{"values": {"items": [\#(items)]}}"#), options: .init(), evaluator: &evaluator)
            return (evaluator.steps, result.values["grand"])
        }
        let (small, _) = try steps(100)
        let (large, grand) = try steps(1_000)
        #expect(grand == 9_009)
        #expect(large <= small * 10 + 10, "\(small) → \(large)")
        #expect(large >= small * 9)
    }

    @Test func definitionErrorsPointAtTheFormula() {
        let pointer = "/components/3/decimal/formula"
        let cases: [(String, String, String)] = [
            ("a +", "badFormula", "at character 4"),
            ("a + (b", "badFormula", "expected \")\""),
            ("\"open", "badFormula", "at character 1"),
            ("a $ 1", "badFormula", "at character 3"),
            ("1 < 2 < 3", "badFormula", "do not chain"),
            ("nope + 1", "unknownField", "nope"),
            ("a + s", "badFormula", "takes numbers"),
            ("s * 2", "badFormula", "takes numbers"),
            ("m", "badFormula", "several choices"),
            ("foo(1)", "badFormula", "unknown function"),
            ("round(a, a)", "badFormula", "round()"),
            ("round(a, 1.5)", "badFormula", "round()"),
            ("if(a, 1, 2)", "badFormula", "if()"),
            ("if(a > 1, 1, \"x\")", "badFormula", "if()"),
            ("sum()", "badFormula", "sum()"),
            ("a > 1", "badFormula", "a comparison"),
            ("s", "badFormula", "gives text"),
            ("r + 1", "formulaCycle", "its own input"),
            ("a[].x", "unknownField", "a[].x"),
        ]
        for (formula, code, words) in cases {
            let found = problems(formula)
            #expect(found.count == 1 && found[0].hasPrefix("\(pointer) \(code):") && found[0].contains(words), "\(formula): \(found)")
        }
        #expect(problems("a", type: "email") == ["/components/3/email/formula notApplicable: \"formula\" does not apply to a \"email\" input; compute a text, integer or decimal."])
        #expect(problems("1", type: "select").contains { $0.contains("formula notApplicable") })
        #expect(problems("1", type: "switch").contains { $0.contains("formula notApplicable") })
        #expect(problems("s & 1", type: "text") == [])
    }

    @Test func cyclesAreNamed() {
        let found = Fixtures.problems(#"""
        {"title": "T", "components": [{"decimal": {"id": "x", "formula": "z + 1"}}, {"decimal": {"id": "y", "formula": "x + 1"}},
          {"decimal": {"id": "z", "formula": "y * 2"}}, {"decimal": {"id": "w", "formula": "x"}}]}
        """#)
        #expect(found.map(\.code) == [.formulaCycle])
        #expect(found.first?.message.contains("→") == true)
        #expect(["x", "y", "z"].allSatisfy { found.first?.message.contains($0) == true })
    }

    @Test func pathsResolveLikeConditions() throws {
        let form = try Fixtures.definition(#"""
        {"title": "T", "components": [{"decimal": {"id": "rate"}},
          {"group": {"id": "address", "components": [{"decimal": {"id": "n"}}, {"decimal": {"id": "m", "formula": "n + address.n + rate"}}]}},
          {"decimal": {"id": "outer", "formula": "address.m + {my-id}"}}, {"decimal": {"id": "my-id"}}]}
        """#)
        let result = try Fixtures.validate(form, #"{"values": {"rate": 1, "address": {"n": 2}, "my-id": 10}}"#)
        #expect(result.values["address"] == ["n": 2, "m": 5] && result.values["outer"] == 15)
        let inRepeat = Fixtures.problems(#"{"title": "T", "components": [{"group": {"id": "g", "repeat": {}, "components": [{"decimal": {"id": "p"}}]}}, {"decimal": {"id": "r", "formula": "g.p"}}]}"#)
        #expect(inRepeat.map(\.code) == [.badFormula])
        let columnOutside = Fixtures.problems(#"{"title": "T", "components": [{"group": {"id": "g", "repeat": {}, "components": [{"decimal": {"id": "p"}}]}}, {"group": {"id": "h", "repeat": {}, "components": [{"decimal": {"id": "r", "formula": "sum(g[].p)"}}]}}]}"#)
        #expect(columnOutside.map(\.code) == [.badFormula])
        let condition = Fixtures.problems(#"{"title": "T", "components": [{"decimal": {"id": "r", "formula": "1"}}, {"text": {"id": "s", "visibleWhen": {"field": "r", "equals": 1}}}]}"#)
        #expect(condition.map(\.pointer) == ["/components/1/text/visibleWhen"])
    }

    @Test func limits() {
        let deep = String(repeating: "(", count: 33) + "1" + String(repeating: ")", count: 33)
        #expect(problems(deep).first?.contains("tooLarge") == true)
        let ok = String(repeating: "(", count: 32) + "1" + String(repeating: ")", count: 32)
        #expect(problems(ok) == [])
        #expect(problems(String(repeating: "-", count: 40) + "1").first?.contains("tooLarge") == true)
        #expect(problems(Array(repeating: "1", count: 501).joined(separator: "+")).first?.contains("tooLarge") == true)
        #expect(problems(Array(repeating: "1", count: 500).joined(separator: "+")) == [])
        #expect(problems("1" + String(repeating: "0", count: 30)).first?.contains("too large") == true)
    }

    /// The longest chains and deepest nesting compile and evaluate on a thread with a small stack
    /// (256 KiB, a quarter of the smallest a server thread gets): the recursion is bounded.
    @Test func theLargestFormulasFitASmallStack() async throws {
        let chain = Array(repeating: "a", count: 500).joined(separator: "+")
        let nested = String(repeating: "(", count: 31) + "sum(a)" + String(repeating: "*1)", count: 31)
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<[JSONValue?], Never>) in
            let thread = Thread {
                var out: [JSONValue?] = []
                for formula in [chain, nested] {
                    let form = try? Fixtures.definition(#"{"title": "T", "components": [{"decimal": {"id": "a"}}, {"decimal": {"id": "r", "formula": "\#(formula)"}}]}"#)
                    let result = try? form.map { $0.validate(try Fixtures.submission(#"{"values": {"a": 1}}"#)) }
                    out.append(result?.values["r"])
                }
                continuation.resume(returning: out)
            }
            thread.stackSize = 256 * 1024
            thread.start()
        }
        #expect(outcome == [500, 1])
    }

    /// Random text never crashes the parser, errors stay within the text, and what compiles is
    /// evaluated in steps bounded by its length.
    /// A random formula from the grammar over the inputs of ``form(_:type:extra:)``.
    private static func expression(depth: Int, using random: inout SeededGenerator) -> String {
        let leaves = ["a", "b", "s", "t", "1", "0.5", "0", "\"x\"", "999999999999999999999999999999"]
        guard depth > 0, Int.random(in: 0..<3, using: &random) > 0 else { return leaves.randomElement(using: &random)! }
        func sub() -> String { expression(depth: depth - 1, using: &random) }
        switch Int.random(in: 0..<7, using: &random) {
        case 0: return "-" + sub()
        case 1: return "(" + sub() + ")"
        case 2: return sub() + [" + ", " - ", " * ", " / ", " & "].randomElement(using: &random)! + sub()
        case 3: return ["sum", "min", "max", "concat"].randomElement(using: &random)! + "(" + sub() + ", " + sub() + ")"
        case 4: return "round(" + sub() + ", 2)"
        case 5: return "if(" + sub() + [" = ", " < ", " >= ", " <> "].randomElement(using: &random)! + sub() + ", " + sub() + ", " + sub() + ")"
        default: return sub()
        }
    }

    @Test func randomFormulasNeverCrash() throws {
        var random = SeededGenerator(state: 26)
        var compiled = 0
        let pieces = ["a", "b", "s", "(", ")", "+", "-", "*", "/", "&", "=", "<", ">", "<>", ",", "1", "0.5", "\"x\"", "\"",
                      "sum(", "min(", "round(", "if(", "concat(", "items[].", "[]", ".", "{", "}", " ", "\\", "é"]
        for round in 0..<3_000 {
            // Half built from the grammar (some with one character cut), half token soup.
            var text = (0..<Int.random(in: 0..<40, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            if round % 2 == 0 {
                text = Self.expression(depth: 4, using: &random)
                if round % 6 == 0, !text.isEmpty {
                    text.remove(at: text.index(text.startIndex, offsetBy: Int.random(in: 0..<text.count, using: &random)))
                }
            }
            do {
                _ = try FormulaParser.parse(text)
            } catch {
                #expect(error.position >= 1 && error.position <= text.count + 1, "\(text)")
            }
            _ = problems(text)
            // A formula that compiles is evaluated in at most a step per character (each node
            // takes at least one), whatever it is.
            guard let form = try? form(text, type: "text") else { continue }
            var evaluator = FormulaEvaluator()
            let values = try Fixtures.submission(#"{"values": {"a": 1.5, "b": 0, "s": "x", "t": "y", "on": true}}"#)
            _ = form.validate(values, options: .init(), evaluator: &evaluator)
            #expect(evaluator.steps <= text.count + 1, "\(text)")
            compiled += 1
        }
        #expect(compiled > 100)
    }
}
