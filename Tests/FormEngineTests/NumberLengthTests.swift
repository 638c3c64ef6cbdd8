import Testing
@testable import FormEngine

/// `minLength`/`maxLength` on `integer`, `decimal` and `numerical` (characters as typed, sign
/// included), and `minValue`/`maxValue` on `numerical` (its digits compared exactly as a number).
@Suite struct NumberLengthTests {
    @Test func integerLengthCountsTheTextAsTypedSignIncluded() throws {
        let form = try Fixtures.single("integer", #""minLength": 2, "maxLength": 4"#)
        #expect(try Fixtures.codes(form, #""-12""#) == [])
        #expect(try Fixtures.codes(form, #""0012""#) == [])
        #expect(try Fixtures.codes(form, #""-0012""#) == [.maxLength])
        #expect(try Fixtures.codes(form, #""+123""#) == [])
        #expect(try Fixtures.codes(form, #""7""#) == [.minLength])
        #expect(try Fixtures.codes(form, #""-7""#) == [])
        #expect(try Fixtures.validate(form, #"{"values": {"f": "0012"}}"#).values["f"] == .number(12))
    }

    /// A JSON number keeps no text once read: it counts as its shortest text, `1e3` as `1000`.
    @Test func aJSONNumberCountsAsItsShortestText() throws {
        let integer = try Fixtures.single("integer", #""maxLength": 3"#)
        #expect(try Fixtures.codes(integer, "100") == [])
        #expect(try Fixtures.codes(integer, "-100") == [.maxLength])
        #expect(try Fixtures.codes(integer, "1e3") == [.maxLength])
        let decimal = try Fixtures.single("decimal", #""maxLength": 3"#)
        #expect(try Fixtures.codes(decimal, "1.50") == [])
        #expect(try Fixtures.codes(decimal, #""1.50""#) == [.maxLength])
        #expect(try Fixtures.codes(decimal, "-1.5") == [.maxLength])
    }

    @Test func decimalLengthAndRulesTogether() throws {
        let form = try Fixtures.single("decimal", #""minLength": 3, "maxValue": 10"#)
        #expect(try Fixtures.codes(form, #""9.5""#) == [])
        #expect(try Fixtures.codes(form, #""95""#) == [.minLength])
        #expect(try Fixtures.codes(form, #""95.0""#) == [.maxValue])
        #expect(try Fixtures.codes(form, #""x.y""#) == [.decimal])
    }

    /// A 19-digit card number: every digit kept and counted, the text stored as typed.
    @Test func aNineteenDigitCardNumberKeepsEveryDigit() throws {
        let form = try Fixtures.single("numerical", #""minLength": 19, "maxLength": 19, "minValue": 1000000000000000000"#)
        let result = try Fixtures.validate(form, #"{"values": {"f": "4111111111111111111"}}"#)
        #expect(result.isValid, "\(result.errors)")
        #expect(result.values["f"] == "4111111111111111111")
        #expect(try Fixtures.codes(form, #""41111111111111111110""#) == [.maxLength])
        #expect(try Fixtures.codes(form, #""411111111111111111""#) == [.minLength])
        #expect(try Fixtures.codes(form, #""0411111111111111111""#) == [.minValue])
    }

    /// Bounds compare the digits exactly: one past a bound that a `Double` cannot tell apart from it is refused.
    @Test func numericalBoundsCompareDigitsExactly() throws {
        let form = try Fixtures.single("numerical", #""minValue": 10, "maxValue": 9007199254740992"#)
        #expect(try Fixtures.codes(form, #""9007199254740992""#) == [])
        #expect(try Fixtures.codes(form, #""9007199254740993""#) == [.maxValue])
        #expect(try Fixtures.codes(form, #""00000000000000000000010""#) == [])
        #expect(try Fixtures.codes(form, #""09""#) == [.minValue])
        #expect(try Fixtures.codes(form, #""99999999999999999999999999999999999999999""#) == [.maxValue])
        let stored = try Fixtures.validate(form, #"{"values": {"f": "0042"}}"#).values["f"]
        #expect(stored == "0042")
        let message = try Fixtures.validate(form, #"{"values": {"f": "9"}}"#).errors.first?.message
        #expect(message == "The value must be at least 10.")
    }

    @Test func numericalBoundsWithFractionsAndAPattern() throws {
        let form = try Fixtures.single("numerical", #""regex": "-?[0-9]+(\\.[0-9]+)?|x", "minValue": -1.5, "maxValue": 1e20"#)
        #expect(try Fixtures.codes(form, #""-1.5""#) == [])
        #expect(try Fixtures.codes(form, #""-1.50001""#) == [.minValue])
        #expect(try Fixtures.codes(form, #""100000000000000000000""#) == [])
        #expect(try Fixtures.codes(form, #""100000000000000000000.1""#) == [.maxValue])
        #expect(try Fixtures.codes(form, #""x""#) == [.numerical])
    }

    @Test func wherePropertiesApply() {
        #expect(Fixtures.problems(#"{"title": "T", "components": [{"numerical": {"id": "f", "minValue": 5, "maxValue": 1}}]}"#).map(\.code) == [.badBounds])
        #expect(Fixtures.problems(#"{"title": "T", "components": [{"decimal": {"id": "f", "minLength": 5, "maxLength": 1}}]}"#).map(\.code) == [.badBounds])
        for type in ["count", "date", "select", "switch"] {
            let options = type == "select" ? #", "options": [{"id": "a"}]"# : ""
            let problems = Fixtures.problems(#"{"title": "T", "components": [{"\#(type)": {"id": "f", "maxLength": 3\#(options)}}]}"#)
            #expect(problems.map(\.code) == [.notApplicable], "\(type)")
        }
        #expect(Fixtures.problems(#"{"title": "T", "components": [{"text": {"id": "f", "maxValue": 3}}]}"#).map(\.code) == [.notApplicable])
    }

    @Test func decimalTextReadsAndOrdersExactly() {
        #expect(DecimalText("-0012.500")?.text == "-12.5")
        #expect(DecimalText("-0.0")?.text == "0")
        for bad in ["", "-", ".5", "5.", "1e3", " 1", "0x1", "1.2.3", "++1"] { #expect(DecimalText(bad) == nil, "\(bad)") }
        #expect(DecimalText(1e25)?.text == "10000000000000000000000000")
        #expect(DecimalText(1.5e-7)?.text == "0.00000015")
        let ordered = ["-100", "-2.5", "-2.25", "0", "0.001", "2", "10", "10.5"].compactMap(DecimalText.init)
        #expect(ordered == ordered.sorted() && ordered.count == 8)
        #expect(DecimalText("1.10") == DecimalText("1.1"))
    }
}
