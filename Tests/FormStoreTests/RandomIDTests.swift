import Testing

@testable import FormStore

@Suite struct RandomIDTests {
    @Test func idsHaveThePrefixAndBase62Characters() {
        let ids = (0..<2000).map { _ in RandomID.make(prefix: "msg_") }
        #expect(Set(ids).count == ids.count)
        let base62 = Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        for id in ids {
            #expect(id.hasPrefix("msg_") && id.count == 28)
            #expect(id.dropFirst(4).allSatisfy { base62.contains($0) })
        }
        // Every character of the alphabet shows up across 48,000 draws.
        #expect(Set(ids.flatMap { $0.dropFirst(4) }) == base62)
    }
}
