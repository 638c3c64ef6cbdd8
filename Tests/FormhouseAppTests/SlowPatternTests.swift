import Foundation
import Synchronization
import Testing
@testable import FormhouseApp

/// A form whose regex is too large for its automaton to be finished is judged off the event loops:
/// while hostile bodies keep validation busy for seconds, the server still answers at once.
@Suite struct SlowPatternTests {
    /// Each `a` of a value adds a thread to the automaton's state, which soon outgrows the table it
    /// could build: every later scalar costs an NFA step over a thousand instructions.
    static let slowForm = #"""
    {"id": "slow", "title": "Slow", "components": [
      {"text": {"id": "one", "title": "One", "regex": ".*a.{300}.{300}.{300}.{300}"}},
      {"text": {"id": "two", "title": "Two", "regex": ".*a.{300}.{300}.{300}.{300}"}}
    ]}
    """#

    /// About 60 KB: two values the regexes choke on, and the rest JSON whitespace.
    static func hostileBody(length: Int) -> String {
        let value = String(repeating: "a", count: length)
        let body = #"{"values": {"one": "\#(value)", "two": "\#(value)"}}"#
        return body + String(repeating: " ", count: max(0, 60_000 - body.utf8.count))
    }

    @Test func healthzStaysFastWhileASlowFormIsValidated() async throws {
        // One event loop, so a validation run on it would hold every connection.
        let server = try await InProcessServer { $0.eventLoops = 1 }
        let client = server.client
        #expect(try await client.admin("PUT", "/v1/admin/forms/slow", json: Self.slowForm).status == 201)

        let finished = Finished()
        let started = ContinuousClock.now
        let hostile = Task {
            defer { finished.flag.store(true, ordering: .relaxed) }
            return try await client.postJSON("/v1/forms/slow/validate", Self.hostileBody(length: 4_000))
        }
        try await Task.sleep(for: .milliseconds(300))
        var slowest = Duration.zero
        for _ in 0..<5 {
            let start = ContinuousClock.now
            #expect(try await client.get("/healthz").status == 200)
            slowest = max(slowest, ContinuousClock.now - start)
        }
        // The validation was still running while /healthz answered: the test measured what it claims.
        let endedEarly = finished.flag.load(ordering: .relaxed)
        #expect(!endedEarly, "the validation ended before /healthz was asked")
        let answer = try await hostile.value
        let validation = ContinuousClock.now - started
        #expect(answer.status == 200, "\(answer.text)")
        // On the only event loop, /healthz could not have answered before the validation ended; the
        // ratio, not a fixed bound, because the suite shares the machine with a hundred others.
        #expect(slowest * 4 < validation, "/healthz took \(slowest) while a validation took \(validation)")
        await server.finish()
    }
}

/// Set when the hostile request has its answer.
final class Finished: Sendable {
    let flag = Atomic<Bool>(false)
}
