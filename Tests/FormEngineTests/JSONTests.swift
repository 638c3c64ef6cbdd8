import Testing
@testable import FormEngine

@Suite struct JSONTests {
    private func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try JSONValue(parsing: Array(text.utf8))
    }

    private func text(_ value: JSONValue) -> String {
        String(decoding: value.serialized(), as: UTF8.self)
    }

    @Test func roundTripKeepsKeyOrderAndIsCompact() throws {
        let source = #"{ "z": 1, "a": [true, false, null], "m": {"y": "x", "b": -2.5}, "e": "" }"#
        #expect(text(try parse(source)) == #"{"z":1,"a":[true,false,null],"m":{"y":"x","b":-2.5},"e":""}"#)
    }

    /// Containers close onto a shared stack; each must take exactly its own members, in order, while
    /// its parent's are still below them, and a duplicate key only clashes within its own object.
    @Test func nestedContainersKeepTheirOwnMembersInOrder() throws {
        let source = #"{"a":{"b":[1,{"c":2,"d":[3,4,{}],"a":5},[]],"e":{"f":{"g":{"a":6}}},"j":7},"h":[[[8]],9],"i":{}}"#
        #expect(text(try parse(source)) == source)
        let wide = "{" + (0..<40).map { #""k\#($0)":{"k":[\#($0),{"k":\#($0)}]}"# }.joined(separator: ",") + "}"
        #expect(text(try parse(wide)) == wide)
        #expect(throws: JSONParseError.self) { try parse(#"{"a":{"b":1,"c":[{"d":1,"d":2}]}}"#) }
    }

    /// Keys are the same when Swift's == says so, which is how they are looked up later: "café" with
    /// é, or with e and a combining accent, or "K" and the Kelvin sign, clash as duplicates in small
    /// objects as they always did in large ones.
    @Test func canonicallyEquivalentKeysAreDuplicates() throws {
        // Escaped and raw UTF-8 alike (a decomposed é is "e" followed by U+0301).
        for pair in [(#"caf\u00e9"#, #"cafe\u0301"#), ("K", #"\u212a"#), (#"\u212a"#, "K"), ("caf\u{E9}", "cafe\u{301}"),
                     ("\u{212A}", "K"), ("x\u{E9}", #"xe\u0301"#)] {
            #expect(throws: JSONParseError.self, "\(pair)") { try parse(#"{"\#(pair.0)": 1, "x": 2, "\#(pair.1)": 3}"#) }
        }
        let large = "{" + (0..<300).map { #""k\#($0)": 0, "#}.joined() + #""caf\u00e9": 1, "cafe\u0301": 2}"#
        #expect(throws: JSONParseError.self) { try parse(large) }
        #expect(text(try parse(#"{"é": 1, "e": 2, "ё": 3}"#)) == #"{"é":1,"e":2,"ё":3}"#)
        // Many distinct non-ASCII keys are fine (they are checked with a set, not pairwise).
        let wide = "{" + (0..<255).map { #""é\#($0)": \#($0)"# }.joined(separator: ", ") + "}"
        #expect(try parse(wide).objectValue?.count == 255)
    }

    @Test func integralNumbersPrintWithoutFraction() throws {
        #expect(text(try parse("[1.0, 0, -0, 12345678901234, 1e3, 0.1, 1e-7, 1.5e300]"))
                == "[1,0,0,12345678901234,1000,0.1,1e-07,1.5e+300]")
    }

    @Test func stringsDecodeEscapesAndUnicode() throws {
        let value = try parse(#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00 é😀""#)
        #expect(value == .string("a\"b\\c/d\n\té😀 é😀"))
        #expect(text(.string("q\"\\\n\u{01}é")) == #""q\"\\\n\u0001é""#)
    }

    @Test func rejectsMalformedInputWithOffset() throws {
        let cases: [(String, Int)] = [
            ("", 0), ("{", 1), (#"{"a" 1}"#, 5), ("[1,]", 3), ("tru", 0), ("01", 1), ("1.", 2), ("-", 1),
            (#""\x""#, 2), ("\"a\u{01}\"", 2), ("[1] 2", 4), (#"{"a":1,"a":2}"#, 7), (#""\ud800""#, 7),
        ]
        for (input, offset) in cases {
            #expect(throws: JSONParseError.self, "\(input)") { try parse(input) }
            do { _ = try parse(input) } catch { #expect(error.offset == offset, "\(input): \(error)") }
        }
    }

    @Test func rejectsInvalidUTF8() {
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE2, 0x82, 0x22]] {
            #expect(throws: JSONParseError.self) { try JSONValue(parsing: bytes) }
        }
        #expect((try? JSONValue(parsing: [0x22, 0xE2, 0x82, 0xAC, 0x22])) == .string("€"))
    }

    @Test func depthIsLimited() throws {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        let error = #expect(throws: JSONParseError.self) { try parse(deep) }
        #expect(error?.code == .tooDeep)
        #expect(error?.offset == 64)
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        _ = try parse(ok)
        #expect(throws: JSONParseError.self) {
            try JSONValue(parsing: Array("[[[]]]".utf8), limits: JSONLimits(maxDepth: 2))
        }
    }

    @Test func largeObjectsKeepOrderAndLookup() throws {
        var object = JSONObject()
        for i in 0..<50 { object["k\(i)"] = .number(Double(i)) }
        object["k3"] = nil
        #expect(object.count == 49)
        #expect(object["k40"] == .number(40))
        #expect(object["k3"] == nil)
        #expect(object.keys.first == "k0" && object.keys.last == "k49")
        let reparsed = try JSONValue(parsing: JSONValue.object(object).serialized())
        #expect(reparsed == .object(object))
    }
}

@Suite struct JSONRoundTripTests {
    /// Strings with quotes, escapes, controls and non-ASCII at every offset survive serialize → parse,
    /// which exercises the parser's eight-bytes-at-a-time scan at every alignment.
    @Test func stringsRoundTripAtEveryAlignment() throws {
        let specials: [String] = ["\"", "\\", "\n", "\u{01}", "\u{1F}", "é", "😀", "\u{7F}", "/", "a"]
        for length in 0..<20 {
            for special in specials {
                for position in 0...length {
                    var text = String(repeating: "x", count: length)
                    text.insert(contentsOf: special, at: text.index(text.startIndex, offsetBy: position))
                    let value = JSONValue.array([.string(text), .object(JSONObject(uniqueMembers: [.init(key: text, value: .string(text))]))])
                    #expect(try JSONValue(parsing: value.serialized()) == value, "\(text.debugDescription)")
                }
            }
        }
    }

    @Test func snapshotSkipsUnreadMembersButStillChecksThem() throws {
        let ok = #"{"components": [{"title": {"nested": [1, 2.5e3, "x\u00e9", null, true]}, "id": "a", "content": "v"}], "extra": {"k": []}}"#
        #expect(try Submission(json: Array(ok.utf8)).values == JSONObject(uniqueMembers: [.init(key: "a", value: "v")]))
        for bad in [#"{"components": [{"title": "bad \x escape", "id": "a"}]}"#, #"{"components": [{"title": [1,], "id": "a"}]}"#,
                    #"{"extra": 01, "values": {}}"#, #"{"components": [{"id": "a", "id": "b"}]}"#, #"{"values": {}, "values": {}}"#,
                    #"{"components": [{"title": "\u{01}"}]}"#, #"{"values": {}} x"#] {
            #expect(throws: SubmissionError.self, "\(bad)") { try Submission(json: Array(bad.utf8)) }
        }
        let invalidUTF8: [UInt8] = Array(#"{"components": [{"title": ""#.utf8) + [0xC3, 0x28] + Array(#"", "id": "a"}]}"#.utf8)
        #expect(throws: SubmissionError.self) { try Submission(json: invalidUTF8) }
    }
}
