import Testing
import FormRegex

@Suite struct ConcurrencyTests {
    /// One Pattern shared by many tasks gives the same answers as on one thread, including inputs
    /// that leave the prebuilt DFA (non-ASCII scalars) and a pattern whose DFA is incomplete.
    @Test func sharedPatternsAgreeAcrossTasks() async throws {
        let email = try Pattern(FormworksPatternTests.email)
        let suffix = try Pattern("[ab]*a[ab]{15}")
        let inputs = ["jane.doe@example.com", "jané@example.com", "no", "x@y.zz", String(repeating: "ab", count: 40)]
        let expected = inputs.map { (email.matches($0), suffix.matches($0)) }
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var mismatches = 0
                    for round in 0..<1_000 {
                        let index = (round + task) % inputs.count
                        if email.matches(inputs[index]) != expected[index].0 { mismatches += 1 }
                        if suffix.matches(inputs[index]) != expected[index].1 { mismatches += 1 }
                    }
                    return mismatches
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        #expect(expected.map(\.0) == [true, false, false, true, false])
        #expect(expected[4].1)
    }
}
