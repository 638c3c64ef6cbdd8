import Testing
@testable import Webhooks

@Suite struct DeliveryLanesTests {
    let start = ContinuousClock.now

    @Test func anUnknownEndpointIsProbedUntilItAnswers() {
        var lanes = DeliveryLanes(threshold: .seconds(1), slowLimit: 2, endpointLimit: 3)
        let probe = lanes.start("a", now: start)
        #expect(lanes.probing == ["a"])
        lanes.finish(probe, speed: .fast, now: start + .milliseconds(5))
        #expect(lanes.probing.isEmpty)
        #expect(lanes.slow.isEmpty)
        let first = lanes.start("a", now: start)
        _ = lanes.start("a", now: start)
        #expect(lanes.probing.isEmpty, "a fast endpoint is not probed")
        #expect(lanes.saturated.isEmpty)
        let third = lanes.start("a", now: start)
        #expect(lanes.saturated == ["a"], "but has at most three in flight")
        #expect(lanes.inFlight == 3)
        let unblockedEarly = lanes.finish(third, speed: .fast, now: start)
        #expect(!unblockedEarly)
        #expect(lanes.saturated == ["a"], "until it is down to half of them")
        let unblocked = lanes.finish(first, speed: .fast, now: start)
        #expect(unblocked, "which lets claims take it again")
        #expect(lanes.saturated.isEmpty)
    }

    @Test func slowEndpointsShareTheSlowLaneEvenly() {
        var lanes = DeliveryLanes(threshold: .seconds(1), slowLimit: 4, endpointLimit: 10)
        for endpoint in ["x", "y"] {
            lanes.finish(lanes.start(endpoint, now: start), speed: .slow, now: start + .seconds(2))
        }
        #expect(lanes.slowAtShare.isEmpty)
        _ = lanes.start("x", now: start)
        _ = lanes.start("x", now: start)
        #expect(lanes.slowAtShare == ["x"], "two of four slots each")
        #expect(lanes.slowRoom == 2)
    }

    @Test func aFailedConnectionLeavesTheEndpointOnProbation() {
        var lanes = DeliveryLanes(threshold: .seconds(1), slowLimit: 2, endpointLimit: 3)
        let token = lanes.start("down", now: start)
        lanes.finish(token, speed: nil, now: start)
        #expect(lanes.probing.isEmpty, "nothing in flight, so it may be tried again")
        _ = lanes.start("down", now: start)
        #expect(lanes.probing == ["down"])
    }

    @Test func slowAnswersAndLongRunningAttemptsMoveToTheSlowLane() {
        var lanes = DeliveryLanes(threshold: .seconds(1), slowLimit: 2, endpointLimit: 3)
        let first = lanes.start("slow", now: start)
        let second = lanes.start("hanging", now: start)
        lanes.finish(first, speed: .slow, now: start + .seconds(2))
        #expect(lanes.slow == ["slow"])
        #expect(lanes.slowInFlight == 0)

        lanes.sweep(now: start + .milliseconds(500))
        #expect(lanes.slow == ["slow"], "not past the threshold yet")
        lanes.sweep(now: start + .seconds(1))
        #expect(lanes.slow == ["slow", "hanging"])
        #expect(lanes.slowInFlight == 1)
        #expect(lanes.slowRoom == 1)
        #expect(lanes.probing.isEmpty)

        let third = lanes.start("slow", now: start + .seconds(2))
        #expect(lanes.slowInFlight == 2)
        #expect(lanes.slowRoom == 0)
        lanes.finish(third, speed: .fast, now: start + .seconds(2))
        lanes.finish(second, speed: .slow, now: start + .seconds(3))
        #expect(lanes.slow == ["hanging"], "a fast answer clears the mark")
        #expect(lanes.slowInFlight == 0)
        #expect(lanes.inFlight == 0)
    }
}
