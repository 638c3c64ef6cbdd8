import Foundation
import Testing
import Webhooks

@Suite struct RetryScheduleTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    let exact = RetrySchedule(jitter: 0)

    @Test func defaultScheduleIsEightAttemptsOverAboutADay() {
        #expect(RetrySchedule.standard.maxAttempts == 8)
        let hours = RetrySchedule.standardDelays.reduce(Duration.zero, +) / .seconds(3600)
        #expect(hours > 27 && hours < 28)
    }

    @Test func successGoneAndExhaustion() {
        #expect(exact.decide(attempt: 1, result: TransferResult(status: 200), now: now) == .succeeded)
        #expect(exact.decide(attempt: 8, result: TransferResult(status: 299), now: now) == .succeeded)
        #expect(exact.decide(attempt: 1, result: TransferResult(status: 410), now: now) == .endpointDisabled)
        #expect(exact.decide(attempt: 8, result: TransferResult(status: 500), now: now) == .dead)
        #expect(exact.decide(attempt: 9, result: TransferResult(status: 500), now: now) == .dead)
    }

    @Test func failuresFollowTheSchedule() {
        let timeout = TransferResult(status: nil, error: TransferError(.timeout, "slow"))
        #expect(exact.decide(attempt: 1, result: timeout, now: now) == .retry(at: now.addingTimeInterval(5)))
        #expect(exact.decide(attempt: 2, result: TransferResult(status: 500), now: now) == .retry(at: now.addingTimeInterval(300)))
        #expect(exact.decide(attempt: 7, result: TransferResult(status: 302), now: now) == .retry(at: now.addingTimeInterval(36000)))
        #expect(exact.decide(attempt: 1, result: TransferResult(status: 100), now: now) == .retry(at: now.addingTimeInterval(5)))
    }

    @Test func jitterStaysWithinItsSpread() {
        let schedule = RetrySchedule(jitter: 0.1)
        var seen = Set<Date>()
        for _ in 0..<200 {
            guard case .retry(let at) = schedule.decide(attempt: 2, result: TransferResult(status: 500), now: now) else {
                Issue.record("not retried")
                return
            }
            let wait = at.timeIntervalSince(now)
            #expect(wait >= 270 && wait <= 330)
            seen.insert(at)
        }
        #expect(seen.count > 1)
    }

    @Test func retryAfterIsHonouredWithinBounds() {
        func after(_ value: String, status: Int = 429, attempt: Int = 2) -> DeliveryOutcome {
            exact.decide(attempt: attempt, result: TransferResult(status: status, retryAfter: value), now: now)
        }
        #expect(after("900") == .retry(at: now.addingTimeInterval(900)))
        #expect(after("900", status: 503) == .retry(at: now.addingTimeInterval(900)))
        #expect(after("10") == .retry(at: now.addingTimeInterval(300)), "never sooner than the schedule")
        #expect(after("999999") == .retry(at: now.addingTimeInterval(36000)), "never later than the longest wait")
        #expect(after("900", status: 500) == .retry(at: now.addingTimeInterval(300)), "only on 429 and 503")
        #expect(after("soon") == .retry(at: now.addingTimeInterval(300)))
        let httpDate = "Tue, 14 Nov 2023 23:13:20 GMT"  // now + 3600 s
        #expect(after(httpDate) == .retry(at: now.addingTimeInterval(3600)))
        #expect(after("900", attempt: 8) == .dead)
    }

    @Test func parsesRetryAfterForms() {
        #expect(RetrySchedule.retryAfterSeconds("120", now: now) == 120)
        #expect(RetrySchedule.retryAfterSeconds(" 0 ", now: now) == 0)
        #expect(RetrySchedule.retryAfterSeconds("-5", now: now) == nil)
        #expect(RetrySchedule.retryAfterSeconds("Tue, 14 Nov 2023 22:13:20 GMT", now: now) == 0)
        #expect(RetrySchedule.retryAfterSeconds("Tue, 14 Nov 2023 22:13:30 GMT", now: now) == 10)
        #expect(RetrySchedule.retryAfterSeconds("tomorrow", now: now) == nil)
    }
}

@Suite struct WebhookPayloadTests {
    @Test func wrapsDataWithoutReencodingIt() throws {
        let data = Array(#"{"id":"sub_1","values":{"name":"Ana"}}"#.utf8)
        let body = WebhookPayload.envelope(timestamp: Date(timeIntervalSince1970: 1_614_265_330), data: data)
        #expect(String(decoding: body, as: UTF8.self)
            == #"{"type":"submission.accepted","timestamp":"2021-02-25T15:02:10Z","data":{"id":"sub_1","values":{"name":"Ana"}}}"#)
        #expect(try JSONSerialization.jsonObject(with: Data(body)) is [String: Any])
    }
}
