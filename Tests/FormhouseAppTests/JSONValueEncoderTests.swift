import FormEngine
import Foundation
import Testing
@testable import FormhouseApp

struct JSONValueEncoderTests {
    static func text(_ value: some Encodable) throws -> String {
        String(decoding: try JSONValueEncoder().encode(value).serialized(), as: UTF8.self)
    }

    struct Declared: Encodable {
        var zeta = "z"
        var alpha = 1
        var mid = 2.5
        var flag = true
        var absent: String?
        var present: Int? = 7
        @NullWhenNil var empty: String?
        @NullWhenNil var filled: Int? = 3
    }

    @Test func membersComeInDeclarationOrderAndAbsentOptionalsAreLeftOut() throws {
        #expect(try Self.text(Declared()) == #"{"zeta":"z","alpha":1,"mid":2.5,"flag":true,"present":7,"empty":null,"filled":3}"#)
    }

    struct Outer: Encodable {
        var items: [Inner]
        var grid: [[Int]]
        var names: [String?]
    }

    struct Inner: Encodable {
        var b: String
        var a: Double
    }

    @Test func nestedObjectsAndArrays() throws {
        let outer = Outer(items: [Inner(b: "x", a: 1e15), Inner(b: "q\"\\\n", a: -0.5)], grid: [[1, 2], []], names: ["n", nil])
        #expect(try Self.text(outer) == #"{"items":[{"b":"x","a":1000000000000000},{"b":"q\"\\\n","a":-0.5}],"grid":[[1,2],[]],"names":["n",null]}"#)
    }

    /// Written through every kind of container by hand, as a custom `encode(to:)` would.
    struct Handwritten: Encodable {
        enum Keys: String, CodingKey { case first, nested, list, first2 }
        enum InnerKeys: String, CodingKey { case deep }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(UInt8(1), forKey: .first)
            var nested = container.nestedContainer(keyedBy: InnerKeys.self, forKey: .nested)
            try nested.encodeNil(forKey: .deep)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            try list.encode(Int64(-2))
            try list.encode("s")
            var inList = list.nestedContainer(keyedBy: InnerKeys.self)
            try inList.encode(false, forKey: .deep)
            var innerList = list.nestedUnkeyedContainer()
            try innerList.encodeNil()
            try container.encode(Float(0.5), forKey: .first2)
            // A key written again keeps its place and takes the last value.
            try container.encode("again", forKey: .first)
        }
    }

    @Test func everyKindOfContainer() throws {
        #expect(try Self.text(Handwritten()) == #"{"first":"again","nested":{"deep":null},"list":[-2,"s",{"deep":false},[null]],"first2":0.5}"#)
    }

    /// Two keyed containers of one value write one object: how an answer adds members to another's.
    struct Extended: Encodable {
        var base = Inner(b: "b", a: 2)
        var extra = "e"
        enum Keys: CodingKey { case extra }

        func encode(to encoder: any Encoder) throws {
            try base.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(extra, forKey: .extra)
        }
    }

    @Test func keyedContainersOfOneValueShareTheirObject() throws {
        #expect(try Self.text(Extended()) == #"{"b":"b","a":2,"extra":"e"}"#)
    }

    struct Carrying: Encodable {
        var id = "x"
        var stored: JSONValue
    }

    @Test func aJSONValueIsTakenAsItIs() throws {
        let stored: JSONValue = ["z": 1, "a": [true, nil, "t"], "m": ["k": 0.25]]
        #expect(try JSONValueEncoder().encode(stored) == stored)
        #expect(try Self.text(Carrying(stored: stored)) == #"{"id":"x","stored":{"z":1,"a":[true,null,"t"],"m":{"k":0.25}}}"#)
    }

    @Test func singleValuesAndNothing() throws {
        #expect(try Self.text("plain") == #""plain""#)
        #expect(try Self.text(42) == "42")
        #expect(try Self.text([UInt64(3), 4]) == "[3,4]")
        #expect(try Self.text(Int?.none) == "null")
        struct Nothing: Encodable { func encode(to encoder: any Encoder) throws {} }
        #expect(try Self.text(Nothing()) == "{}")
    }

    @Test func otherEncodersGetAJSONValuesMembers() throws {
        let value: JSONValue = ["b": [1, "x", nil], "a": false]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(value), as: UTF8.self) == #"{"a":false,"b":[1,"x",null]}"#)
    }
}
