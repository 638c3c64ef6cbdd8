import Testing
@testable import FormEngine
import SeededRandom

/// Bounded random mutations of real bodies: nothing crashes, and the one-pass submission reader
/// accepts exactly the bodies the full parser accepts, duplicate keys included (it checks those in the
/// members it skips too).
@Suite struct MutationTests {
    static let seeds: [String] = [
        #"{"components":[{"id":"name","title":"Name?","description":"d\u00e9","required":true,"regex":"[a-z]+","placeholder":"","content":"Ana"},{"id":"n","content":12.5e1}],"formVersion":2}"#,
        #"{"values":{"name":"Ana","address":{"line1":"R\"ua","tags":[true,false,null,-0.5]}},"formVersion":1}"#,
    ]

    @Test func readerAgreesWithParser() throws {
        var generator = SeededGenerator(state: 0x5EED)
        let alphabet = Array(#"{}[]:,"\ tfnu0123456789.eE+-aé"#.utf8)
        var outcomes = (accepted: 0, rejected: 0)
        for seed in Self.seeds {
            let original = Array(seed.utf8)
            for _ in 0..<3_000 {
                var bytes = original
                for _ in 0..<Int(generator.next() % 3 + 1) {
                    let at = Int(generator.next() % UInt64(bytes.count))
                    switch generator.next() % 3 {
                    case 0: bytes[at] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                    case 1: bytes.remove(at: at)
                    default: bytes.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: at)
                    }
                }
                let parsed: Bool
                do {
                    _ = try JSONValue(parsing: bytes, limits: JSONLimits(maxDepth: 32))
                    parsed = true
                } catch {
                    parsed = false
                }
                var malformed = false
                do {
                    _ = try Submission(json: bytes)
                } catch {
                    malformed = error.code == .malformedJSON
                }
                #expect(malformed == !parsed, "\(String(decoding: bytes, as: UTF8.self))")
                if parsed { outcomes.accepted += 1 } else { outcomes.rejected += 1 }
            }
        }
        #expect(outcomes.accepted > 500 && outcomes.rejected > 500, "\(outcomes)")
    }
}
