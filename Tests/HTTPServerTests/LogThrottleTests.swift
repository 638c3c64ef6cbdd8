@testable import HTTPServer
import Testing

@Suite struct LogThrottleTests {
    @Test func saysTheFirstAtOnceAndTheRestOncePerIntervalWithTheirCount() {
        var throttle = LogThrottle(interval: 1000)
        #expect(throttle.record(at: 5000) == 1)
        #expect(throttle.record(at: 5100) == nil)
        #expect(throttle.record(at: 5999) == nil)
        #expect(throttle.record(at: 6000) == 3)
        #expect(throttle.record(at: 9000) == 1)
    }
}
