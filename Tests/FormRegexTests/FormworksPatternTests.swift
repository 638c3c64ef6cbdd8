import Testing
import FormRegex

/// The default regexes of Formworks' `FWRegex` (Sources/Formworks/Validators/FWRegexValidator.swift in
/// MyFormworks/Formworks) with the strings from its FWRegexValidatorTests.
@Suite struct FormworksPatternTests {
    static let email = #"[0-9a-z._%+-]+@[a-z0-9.-]+\.[a-z]{2,64}"#
    static let phone = #"\(?\b([0-9]{2,3}|0((x|[0-9]){2,3}[0-9]{2}))\)?\s*[0-9]{4,5}[- ]*[0-9]{4}\b"#
    static let max32 = ##"[A-Za-z0-9 !"#$%&'()*+,-./:;<=>?@\[\\\]^_`{|}~]{0,32}"##
    static let numerical = "[0-9]+"
    static let custom = "[a-z]at"

    static let cases: [(pattern: String, valid: [String], invalid: [String])] = [
        (email,
         ["test@example.com", "test01@example.com", "test@example01.com"],
         ["this is not an email", "test@example", "testexample.com", "test@@example.com", "#test@example.com",
          "test@#example.com", "", "Test@example.com"]),
        (phone,
         ["0012345678", "00123456789", "00 1234 1234", "00 12345 1234", "(00)1234-1234", "(00)12345-1234",
          "(00)12345678", "(00)123456789", "(00) 1234 1234", "(00) 12345 1234", "(00) 12345678",
          "(00) 123456789", "(000)1234 1234", "(000)12345 1234", "0000123456789"],
         ["This is not a phonenumber", "12345678", "123456789", "11 1234@5678", "(0000)000000000", "123", ""]),
        (max32,
         ["This is a test text", "This is a 32 characters text! =)", "", #"a\b[c]d"#],
         ["This is a text with 33 characters",
          "This text have more than 32 characters. To be more exact, this text is 90 characters long.", "é"]),
        (numerical, ["0", "0123456789"], ["", "12a", "-1", "1.5"]),
        (custom, ["hat", "rat", "cat", "bat"], ["1at", "@at", "chat", "battery", "banana"]),
    ]

    @Test(arguments: cases.indices)
    func agreesWithFormworksTestsAndICU(index: Int) throws {
        let (source, valid, invalid) = Self.cases[index]
        let pattern = try Pattern(source)
        for string in valid {
            #expect(pattern.matches(string), "\(pattern) should accept \(string.debugDescription)")
            #expect(try Reference.matches(source, string))
        }
        for string in invalid {
            #expect(!pattern.matches(string), "\(pattern) should reject \(string.debugDescription)")
            #expect(try !Reference.matches(source, string))
        }
    }
}
