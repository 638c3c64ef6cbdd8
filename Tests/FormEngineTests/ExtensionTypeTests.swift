import Testing
@testable import FormEngine

@Suite struct ExtensionTypeTests {
    private func stored(_ form: FormDefinition, _ value: String) throws -> JSONValue? {
        let result = try Fixtures.validate(form, #"{"values": {"f": \#(value)}}"#)
        #expect(result.isValid, "\(value): \(result.errors)")
        return result.values["f"]
    }

    @Test func integerAcceptsWhatIntAccepts() throws {
        let form = try Fixtures.single("integer", #""minValue": -5, "maxValue": 100"#)
        for ok in [#""42""#, #""+7""#, #""-5""#, #""007""#, "100", "-5", "3.0"] {
            #expect(try Fixtures.codes(form, ok) == [], "\(ok)")
        }
        for bad in [#""4 2""#, #"" 4""#, #""4.0""#, #""1e2""#, #""--1""#, #""+""#, #""0x10""#, "2.5", "true", #"["1"]"#] {
            #expect(try Fixtures.codes(form, bad) == [.integer], "\(bad)")
        }
        #expect(try Fixtures.codes(form, #""-6""#) == [.minValue])
        #expect(try Fixtures.codes(form, "101") == [.maxValue])
        #expect(try stored(form, #""+7""#) == .number(7))
        #expect(try Fixtures.codes(form, #""99999999999999999999""#) == [.integer])
    }

    /// Leading zeros do not count toward a whole number's size: text of more than 20 bytes is read,
    /// not refused for its length. Too many significant digits get the range message.
    @Test func integerTextMayHaveAnyNumberOfLeadingZeros() throws {
        let form = try Fixtures.single("integer")
        let zeros = String(repeating: "0", count: 40)
        #expect(try stored(form, #""\#(zeros)42""#) == .number(42))
        #expect(try stored(form, #""-\#(zeros)42""#) == .number(-42))
        #expect(try stored(form, #""+\#(zeros)""#) == .number(0))
        #expect(try stored(form, #""\#(zeros)9007199254740992""#) == .number(9_007_199_254_740_992))
        for tooLarge in [#""\#(zeros)9007199254740993""#, #""\#(String(repeating: "9", count: 400))""#] {
            let result = try Fixtures.validate(form, #"{"values": {"f": \#(tooLarge)}}"#)
            #expect(result.errors.map(\.code) == [.integer])
            #expect(result.errors.first?.message.contains("9007199254740992") == true, "\(tooLarge)")
        }
        for bad in [#""\#(zeros)x""#, #""\#(zeros)-1""#, #""-""#, #""٣""#] {
            let result = try Fixtures.validate(form, #"{"values": {"f": \#(bad)}}"#)
            #expect(result.errors.map(\.message) == ["Please enter a whole number."], "\(bad)")
        }
    }

    /// Whole numbers stay exact to 2^53 whether sent as numbers or text; past that both are refused
    /// (text is never rounded: "9007199254740993" is refused, not stored as 9007199254740992).
    /// A JSON number of 2^53 or more may already have lost digits when it arrives (4111111111111111111
    /// reads as ...168, 9007199254740993 as ...992); text inputs and whole numbers refuse it and ask
    /// for text, which keeps every digit.
    @Test func jsonNumbersThatMayHaveLostDigitsAreRefused() throws {
        let numerical = try Fixtures.single("numerical")
        let text = try Fixtures.single("text")
        let integer = try Fixtures.single("integer")
        for big in ["4111111111111111111", "9007199254740993", "-9007199254740992", "1e300"] {
            #expect(try Fixtures.codes(numerical, big) == [.type], "\(big)")
            #expect(try Fixtures.codes(text, big) == [.type], "\(big)")
            #expect(try Fixtures.codes(integer, big) == [.integer], "\(big)")
        }
        let message = try Fixtures.validate(integer, #"{"values": {"f": 9007199254740993}}"#).errors.first?.message
        #expect(message?.contains("as text") == true)
        #expect(try stored(numerical, #""4111111111111111111""#) == "4111111111111111111")
        #expect(try stored(numerical, "9007199254740991") == "9007199254740991")
        #expect(try stored(integer, "-9007199254740991") == .number(-9_007_199_254_740_991))
        #expect(try stored(text, "0.1") == "0.1")
    }

    /// CR LF is one character (one grapheme), also in ASCII text, where length is counted in bytes.
    @Test func crlfCountsAsOneCharacter() throws {
        let form = try Fixtures.single("text", #""maxLength": 3"#)
        #expect(try Fixtures.codes(form, #""a\r\nb""#) == [])
        #expect(try Fixtures.codes(form, #""é\r\nb""#) == [])
        #expect(try Fixtures.codes(form, #""a\r\nbc""#) == [.maxLength])
        #expect(try Fixtures.codes(form, #""a\rb\nc""#) == [.maxLength])
    }

    @Test func integersBeyondTwoToThe53AreRefusedNotRounded() throws {
        let form = try Fixtures.single("integer")
        #expect(try stored(form, "1000000000000000") == .number(1e15))
        #expect(try stored(form, #""9007199254740992""#) == .number(9_007_199_254_740_992))
        #expect(try stored(form, #""-9007199254740992""#) == .number(-9_007_199_254_740_992))
        for bad in [#""9007199254740993""#, #""9223372036854775807""#, #""-9007199254740993""#, "123456789012345678", "1e300"] {
            #expect(try Fixtures.codes(form, bad) == [.integer], "\(bad)")
        }
        let result = try Fixtures.validate(form, #"{"values": {"f": "9007199254740993"}}"#)
        #expect(result.errors.first?.message.contains("9007199254740992") == true)
        // Stored as written, without a fraction or an exponent.
        let values = try Fixtures.validate(form, #"{"values": {"f": 1000000000000000}}"#).values
        #expect(String(decoding: values.serialized(), as: UTF8.self) == #"{"f":1000000000000000}"#)
    }

    @Test func countIsAnInteger() throws {
        let form = try Fixtures.single("count", #""minValue": 0, "maxValue": 10"#)
        #expect(try stored(form, "3") == .number(3))
        #expect(try Fixtures.codes(form, "11") == [.maxValue])
        #expect(try Fixtures.codes(form, "1.5") == [.integer])
    }

    @Test func decimalPlacesAndBounds() throws {
        let form = try Fixtures.single("decimal", #""maxDecimalPlaces": 2, "minValue": 0, "maxValue": 10.5"#)
        for ok in [#""1.25""#, #""10.50""#, #""0""#, "1.25", #""+3.1""#, "10.5"] {
            #expect(try Fixtures.codes(form, ok) == [], "\(ok)")
        }
        #expect(try Fixtures.codes(form, #""1.255""#) == [.decimalPlaces])
        #expect(try Fixtures.codes(form, "1.255") == [.decimalPlaces])
        #expect(try Fixtures.codes(form, #""10.51""#) == [.maxValue])
        #expect(try Fixtures.codes(form, #""-0.01""#) == [.minValue])
        for bad in [#""1.""#, #"".5""#, #""1,5""#, #""abc""#, #""1.2.3""#, #""1e3""#, "false"] {
            #expect(try Fixtures.codes(form, bad) == [.decimal], "\(bad)")
        }
        #expect(try stored(form, #""2.50""#) == .number(2.5))
        // Text with more digits than a Double keeps is refused, not checked and stored as another
        // number (0.99999999999999999 would pass a minimum of 1 as 1).
        let bounded = try Fixtures.single("decimal", #""minValue": 1, "maxValue": 9007199254740992"#)
        for inexact in [#""0.99999999999999999""#, #""9007199254740993""#, #""12345678901234567890.5""#, #""1.00000000000000001""#] {
            #expect(try Fixtures.codes(bounded, inexact) == [.decimal], "\(inexact)")
        }
        for exact in [#""9007199254740992""#, #""1.000""#, #""001.5""#, #""123456.789""#] {
            #expect(try Fixtures.codes(bounded, exact) == [], "\(exact)")
        }
        #expect(try stored(form, #""0.1""#) == .number(0.1))
        #expect(try stored(form, #""-0.0""#) == .number(0))
        let whole = try Fixtures.single("decimal", #""maxDecimalPlaces": 0"#)
        // Trailing zeros are not decimal places, as text or as a JSON number (1.10 is 1.1).
        #expect(try Fixtures.codes(whole, #""2.0""#) == [])
        #expect(try Fixtures.codes(whole, #""2.50""#) == [.decimalPlaces])
        #expect(try Fixtures.codes(whole, "2") == [])
        let one = try Fixtures.single("decimal", #""maxDecimalPlaces": 1"#)
        for same in [#""1.10""#, "1.10", #""1.100""#] {
            #expect(try stored(one, same) == .number(1.1), "\(same)")
        }
        // Large whole numbers have no decimal places either way they are sent (1e15 is written as
        // digits: "1e+15" would count one).
        for big in ["1000000000000000", #""1000000000000000""#, "1e15", "12345678901234567"] {
            #expect(try Fixtures.codes(whole, big) == [], "\(big)")
        }
        #expect(JSONValue.numberText(1e15) == "1000000000000000")
        #expect(JSONValue.numberText(-4e18) == "-4000000000000000000")
        #expect(JSONValue.numberText(1e19) == "1e+19")
        #expect(JSONValue.numberText(0.5) == "0.5")
    }

    @Test func dateFormatCalendarAndBounds() throws {
        let form = try Fixtures.single("date", #""minDate": "2000-01-01", "maxDate": "2030-12-31""#)
        for ok in [#""2024-02-29""#, #""2000-01-01""#, #""2030-12-31""#] {
            #expect(try Fixtures.codes(form, ok) == [], "\(ok)")
        }
        for bad in [#""2023-02-29""#, #""2024-13-01""#, #""2024-1-01""#, #""24-01-01""#, #""2024/01/01""#, #""2024-04-31""#, "20240101"] {
            #expect(try Fixtures.codes(form, bad) == [.date], "\(bad)")
        }
        #expect(try Fixtures.codes(form, #""1999-12-31""#) == [.minValue])
        #expect(try Fixtures.codes(form, #""2031-01-01""#) == [.maxValue])
    }

    @Test func selectSingleAndMultiple() throws {
        let single = try Fixtures.single("select", #""options": [{"id": "red", "title": "Red"}, {"id": "blue", "title": "Blue"}]"#)
        #expect(try stored(single, #""red""#) == .string("red"))
        #expect(try Fixtures.codes(single, #""green""#) == [.option])
        #expect(try Fixtures.codes(single, #"["red"]"#) == [.option])
        let multiple = try Fixtures.single("select", #""multiple": true, "required": true, "options": [{"id": "a"}, {"id": "b"}, {"id": "c"}]"#)
        #expect(try stored(multiple, #"["c", "a", "c"]"#) == ["c", "a"])
        #expect(try stored(multiple, #""a,b""#) == ["a", "b"])
        #expect(try Fixtures.codes(multiple, #"["a", "z"]"#) == [.option])
        #expect(try Fixtures.codes(multiple, "[]") == [.required])
        #expect(try Fixtures.codes(multiple, "[1]") == [.option])
        // Text with empty pieces chooses no option that exists: not an empty (and so valid) choice.
        #expect(try Fixtures.codes(multiple, #"",""#) == [.option])
        #expect(try Fixtures.codes(multiple, #""a,,b""#) == [.option])
    }

    @Test func switchIsBoolean() throws {
        let form = try Fixtures.single("switch")
        #expect(try stored(form, "true") == .bool(true))
        #expect(try stored(form, #""false""#) == .bool(false))
        for bad in [#""yes""#, "1", #""TRUE""#] {
            #expect(try Fixtures.codes(form, bad) == [.boolean], "\(bad)")
        }
        let mustAgree = try Fixtures.single("switch", #""required": true"#)
        #expect(try Fixtures.codes(mustAgree, "false") == [.required])
        #expect(try Fixtures.codes(mustAgree, "true") == [])
    }

    @Test func passwordLengths() throws {
        let form = try Fixtures.single("password", #""minLength": 8, "maxLength": 12"#)
        #expect(try Fixtures.codes(form, #""short""#) == [.minLength])
        #expect(try Fixtures.codes(form, #""long enough""#) == [])
        #expect(try Fixtures.codes(form, #""far too long here""#) == [.maxLength])
    }

    @Test func lengthsCountCharactersAsSeen() throws {
        let form = try Fixtures.single("text", #""maxLength": 3"#)
        #expect(try Fixtures.codes(form, #""👍🏽🇧🇷é""#) == [])
        #expect(try Fixtures.codes(form, #""e\u0301e\u0301e\u0301""#) == [])
        #expect(try Fixtures.codes(form, #""abcd""#) == [.maxLength])
    }

    @Test func usPhone() throws {
        let form = try Fixtures.single("usphone")
        #expect(try Fixtures.codes(form, #""555-123-4567""#) == [])
        for bad in [#""5551234567""#, #""555-123-45678""#, #""(555) 123-4567""#, #""555-1234-567""#, #""555-123-456a""#] {
            #expect(try Fixtures.codes(form, bad) == [.phone], "\(bad)")
        }
    }

    @Test func usStateByNameOrCode() throws {
        let form = try Fixtures.single("usstate")
        #expect(try stored(form, #""ca""#) == .string("CA"))
        #expect(try stored(form, #""new YORK""#) == .string("NY"))
        #expect(try stored(form, #""District of Columbia""#) == .string("DC"))
        for bad in [#""Narnia""#, #""XX""#, #""Cali""#, "5"] {
            #expect(try Fixtures.codes(form, bad) == [.state], "\(bad)")
        }
    }

    @Test func propertiesThatDoNotApplyAreRejected() {
        let problems = Fixtures.problems(#"""
        {"title": "T", "components": [
          {"count": {"id": "a", "regex": "[0-9]+", "minLength": 1}},
          {"text": {"id": "b", "minValue": 1, "options": []}},
          {"select": {"id": "c"}},
          {"decimal": {"id": "d", "maxDecimalPlaces": -1}}
        ]}
        """#)
        #expect(problems.map { "\($0.pointer) \($0.code)" } == [
            "/components/0/count/regex notApplicable", "/components/0/count/minLength notApplicable",
            "/components/1/text/minValue notApplicable", "/components/1/text/options notApplicable",
            "/components/2/select/options missing", "/components/3/decimal/maxDecimalPlaces invalidType",
        ])
    }

    /// Container properties on inputs, and input properties on containers, are not silently ignored.
    @Test func containerAndInputPropertiesStayApart() {
        let problems = Fixtures.problems(#"""
        {"title": "T", "components": [
          {"text": {"id": "a", "repeat": {"min": 1}}},
          {"group": {"id": "g", "required": true, "regex": "[0-9]+", "components": [{"text": {"id": "b"}}]}},
          {"section": {"id": "s", "required": true, "components": [{"text": {"id": "c"}}]}}
        ]}
        """#)
        #expect(problems.map { "\($0.pointer) \($0.code)" } == [
            "/components/0/text/repeat notApplicable",
            "/components/1/group/required notApplicable", "/components/1/group/regex notApplicable",
            "/components/2/section/required notApplicable", "/components/2/section/id notApplicable",
        ])
    }
}
