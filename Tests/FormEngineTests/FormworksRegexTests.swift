import Testing
import FormRegex
@testable import FormEngine

/// The strings of Formworks' own FWRegexValidatorTests, against its FWRegex patterns.
@Suite struct FormworksRegexTests {
    static let emailValid = ["test@example.com", "test01@example.com", "test@example01.com"]
    static let emailInvalid = ["this is not an email", "test@example", "testexample.com", "test@@example.com",
                               "#test@example.com", "test@#example.com", ""]
    static let phoneValid = ["0012345678", "00123456789", "00 1234 1234", "00 12345 1234", "(00)1234-1234",
                             "(00)12345-1234", "(00)12345678", "(00)123456789", "(00) 1234 1234",
                             "(00) 12345 1234", "(00) 12345678", "(00) 123456789", "(000)1234 1234",
                             "(000)12345 1234", "0000123456789"]
    static let phoneInvalid = ["This is not a phonenumber", "12345678", "123456789", "11 1234@5678",
                               "(0000)000000000", "123", ""]
    static let max32Valid = ["This is a test text", "This is a 32 characters text! =)"]
    static let max32Invalid = ["This is a text with 33 characters",
                               "This text have more than 32 characters. To be more exact, this text is 90 characters long."]
    static let customValid = ["hat", "rat", "cat", "bat"]
    static let customInvalid = ["1at", "@at", "chat", "battery", "banana"]

    @Test func emailPattern() throws {
        let pattern = try Pattern(FormworksRegex.email)
        for s in Self.emailValid { #expect(pattern.matches(s), "\(s)") }
        for s in Self.emailInvalid { #expect(!pattern.matches(s), "\(s)") }
    }

    @Test func phonenumberPattern() throws {
        let pattern = try Pattern(FormworksRegex.phonenumber)
        for s in Self.phoneValid { #expect(pattern.matches(s), "\(s)") }
        for s in Self.phoneInvalid { #expect(!pattern.matches(s), "\(s)") }
    }

    @Test func max32Pattern() throws {
        let pattern = try Pattern(FormworksRegex.max32)
        for s in Self.max32Valid { #expect(pattern.matches(s), "\(s)") }
        for s in Self.max32Invalid { #expect(!pattern.matches(s), "\(s)") }
    }

    @Test func customPattern() throws {
        let pattern = try Pattern("[a-z]at")
        for s in Self.customValid { #expect(pattern.matches(s), "\(s)") }
        for s in Self.customInvalid { #expect(!pattern.matches(s), "\(s)") }
    }

    /// The hand-written email and numerical matchers accept exactly what the patterns accept.
    @Test func handMatchersAgreeWithPatterns() throws {
        let email = try Pattern(FormworksRegex.email)
        let numerical = try Pattern(FormworksRegex.numerical)
        var samples = Self.emailValid + Self.emailInvalid + Self.phoneValid + Self.customInvalid + [
            "a@b.cc", "a@b.c", "a@.cc", "@b.cc", "a@b.c1", "a@b-.cc", "a.b@c.d.ef", "a@b..cc", "a@b.cc.",
            "A@b.cc", "a@B.cc", "a+b%c@d-e.fg", "a@b.\(String(repeating: "x", count: 64))",
            "a@b.\(String(repeating: "x", count: 65))", "0", "007", "1 2", "-1", "١٢", "é@b.cc",
        ]
        let alphabet = Array("a@.-0_Z")
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            samples.append(String((0..<Int.random(in: 0...8, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }))
        }
        for s in samples {
            #expect(FormworksRegex.matchesEmail(s) == email.matches(s), "email \(s)")
            #expect(FormworksRegex.matchesNumerical(s) == numerical.matches(s), "numerical \(s)")
        }
    }

    /// Formworks' email/phone/numerical types use these rules by default.
    @Test func typesUseTheDefaults() throws {
        let email = try Fixtures.single("email")
        for s in Self.emailValid { #expect(try Fixtures.codes(email, "\"\(s)\"") == [], "\(s)") }
        for s in Self.emailInvalid where !s.isEmpty { #expect(try Fixtures.codes(email, "\"\(s)\"") == [.email], "\(s)") }
        let phone = try Fixtures.single("phonenumber")
        for s in Self.phoneValid { #expect(try Fixtures.codes(phone, "\"\(s)\"") == [], "\(s)") }
        for s in Self.phoneInvalid where !s.isEmpty { #expect(try Fixtures.codes(phone, "\"\(s)\"") == [.phone], "\(s)") }
        let custom = try Fixtures.single("text", #""regex": "[a-z]at""#)
        for s in Self.customValid { #expect(try Fixtures.codes(custom, "\"\(s)\"") == [], "\(s)") }
        for s in Self.customInvalid { #expect(try Fixtures.codes(custom, "\"\(s)\"") == [.pattern], "\(s)") }
        let max32 = try Fixtures.single("multiline", #""regex": \#(String(decoding: JSONValue.string(FormworksRegex.max32).serialized(), as: UTF8.self))"#)
        for s in Self.max32Valid { #expect(try Fixtures.codes(max32, "\"\(s)\"") == [], "\(s)") }
        for s in Self.max32Invalid { #expect(try Fixtures.codes(max32, "\"\(s)\"") == [.pattern], "\(s)") }
        let numerical = try Fixtures.single("numerical")
        #expect(try Fixtures.codes(numerical, #""0123""#) == [])
        #expect(try Fixtures.codes(numerical, "42") == [])
        #expect(try Fixtures.codes(numerical, #""12a""#) == [.numerical])
        #expect(try Fixtures.codes(numerical, #""-1""#) == [.numerical])
    }
}
