import Foundation
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

@Suite struct TimeOrderedIDTests {
    @Test func laterIdsSortAfterEarlierOnes() {
        let base = Date(timeIntervalSince1970: 1_763_710_000)
        var previous = ""
        for step in 0..<2000 {
            let id = RandomID.timeOrdered(prefix: "sub_", at: base.addingTimeInterval(Double(step) * 0.0017))
            #expect(id.hasPrefix("sub_") && id.count == 28)
            if step > 0, id.dropFirst(4).prefix(8) != previous.dropFirst(4).prefix(8) { #expect(id > previous) }
            previous = id
        }
        // Fixed width through the year 8000, so text order is time order.
        let late = RandomID.timeOrdered(prefix: "", at: Date(timeIntervalSince1970: 190_000_000_000))
        let early = RandomID.timeOrdered(prefix: "", at: Date(timeIntervalSince1970: 0))
        #expect(late.count == 24 && early.count == 24 && early.hasPrefix("00000000") && late > early)
    }

    @Test func theRandomPartDiffersWithinOneMillisecond() {
        let now = Date()
        let ids = (0..<5000).map { _ in RandomID.timeOrdered(prefix: "msg_", at: now) }
        #expect(Set(ids).count == ids.count)
        #expect(Set(ids.map { $0.prefix(12) }).count == 1)
    }
}
