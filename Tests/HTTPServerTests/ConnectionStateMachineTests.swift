@testable import HTTPServer
import Testing

/// The connection's lifecycle without sockets: each test feeds the events a connection would see
/// and checks the actions, states and deadlines that follow.
@Suite struct ConnectionStateMachineTests {
    typealias Machine = ConnectionStateMachine

    static let timeouts = Machine.Timeouts(header: 10, body: 20, idle: 30, write: 40)

    /// A machine that has read a whole request (at `now` 100) and runs its handler.
    static func processing(keepAlive: Bool = true) -> Machine {
        var machine = Machine(timeouts: timeouts, now: 100)
        machine.requestReceived(keepAlive: keepAlive)
        return machine
    }

    /// Runs one event, outside `#expect`, which cannot mutate what it evaluates.
    func step<Action>(_ machine: inout Machine, _ event: (inout Machine) -> Action) -> Action {
        event(&machine)
    }

    @Test func anAcceptedConnectionWaitsForItsFirstHeadWithinTheHeaderTimeout() {
        var machine = Machine(timeouts: Self.timeouts, now: 100)
        #expect(machine.state == .idle)
        #expect(machine.deadline == 110)
        #expect(machine.acceptsInput && machine.expectsRequest)
        machine.headStarted(now: 105)
        #expect(machine.state == .reading(closeAfterAnswer: false))
        #expect(machine.deadline == 115)
        // More of the same head does not move its deadline.
        machine.headStarted(now: 108)
        #expect(machine.deadline == 115)
    }

    @Test func keepAliveAnswerReturnsToIdleWithTheIdleTimeout() {
        var machine = Self.processing()
        #expect(machine.deadline == 0)
        #expect(!machine.acceptsInput)
        #expect(machine.keepsAlive)
        #expect(step(&machine) { $0.responseWritten(outputPending: false, now: 200) } == .resumeReading)
        #expect(machine.state == .idle)
        #expect(machine.deadline == 230)
    }

    @Test func pipelinedRequestsAreAnsweredOneAtATime() {
        var machine = Self.processing()
        // Bytes of the next request wait in the buffer: nothing is decoded while a handler runs.
        #expect(!machine.expectsRequest)
        #expect(machine.keepsInput)
        #expect(step(&machine) { $0.responseWritten(outputPending: false, now: 200) } == .resumeReading)
        #expect(machine.expectsRequest)
        machine.requestReceived(keepAlive: true)
        #expect(machine.isProcessing)
        #expect(step(&machine) { $0.responseWritten(outputPending: true, now: 300) } == .awaitFlush)
        #expect(machine.state == .writing(then: .readNext))
        #expect(!machine.expectsRequest)
        #expect(step(&machine) { $0.outputFlushed(now: 310) } == .resumeReading)
        #expect(machine.state == .idle)
        #expect(machine.deadline == 340)
    }

    @Test func connectionCloseClosesAfterTheAnswer() {
        var machine = Self.processing(keepAlive: false)
        #expect(!machine.keepsAlive)
        #expect(step(&machine) { $0.responseWritten(outputPending: false, now: 200) } == .closeAfterAnswer)
        // The connection looks for unread input; with some, it lingers.
        machine.linger(now: 200)
        #expect(machine.state == .lingering(discarded: 0))
        #expect(machine.deadline == 200 + Machine.Timeouts.linger)
        #expect(!machine.keepsInput)
    }

    @Test func connectionCloseWithQueuedOutputClosesOnceFlushed() {
        var machine = Self.processing(keepAlive: false)
        #expect(step(&machine) { $0.responseWritten(outputPending: true, now: 200) } == .awaitFlush)
        #expect(machine.state == .writing(then: .close))
        #expect(step(&machine) { $0.outputFlushed(now: 210) } == .closeAfterAnswer)
        #expect(step(&machine) { $0.close() })
        #expect(!step(&machine) { $0.close() })
    }

    @Test func http10StreamEndsTheConnection() {
        var machine = Self.processing(keepAlive: true)
        machine.bodyEndsConnection()
        #expect(!machine.keepsAlive)
        #expect(step(&machine) { $0.responseWritten(outputPending: false, now: 200) } == .closeAfterAnswer)
    }

    @Test func expectContinueIsAnsweredWhenTheBodyFits() {
        var machine = Machine(timeouts: Self.timeouts, now: 100)
        #expect(step(&machine) { $0.headReceived(expectation: .continueWithRoom, now: 105) } == .sendContinue)
        #expect(machine.state == .reading(closeAfterAnswer: false))
        #expect(machine.deadline == 125)
        var plain = Machine(timeouts: Self.timeouts, now: 100)
        #expect(step(&plain) { $0.headReceived(expectation: .none, now: 105) } == .readBody)
    }

    @Test func expectContinueIsRefusedWhenTheBodyWouldNotFit() {
        var machine = Machine(timeouts: Self.timeouts, now: 100)
        #expect(step(&machine) { $0.headReceived(expectation: .continueWithoutRoom, now: 105) } == .refuseBody)
        #expect(machine.state == .writing(then: .linger))
        #expect(machine.deadline == 145)
    }

    @Test func refusalMidBodyLingersOnceTheRefusalIsOut() {
        var machine = Machine(timeouts: Self.timeouts, now: 100)
        _ = machine.headReceived(expectation: .none, now: 105)
        machine.refuse(now: 110)
        #expect(machine.state == .writing(then: .linger))
        // What is buffered of the refused request no longer matters.
        #expect(!machine.keepsInput)
        #expect(!machine.acceptsInput)
        #expect(step(&machine) { $0.outputFlushed(now: 120) } == .linger)
        #expect(machine.state == .lingering(discarded: 0))
        #expect(machine.acceptsInput && !machine.expectsRequest)
        #expect(step(&machine) { $0.bytesRead(1000) } == .discard)
        #expect(machine.state == .lingering(discarded: 1000))
        #expect(step(&machine) { $0.bytesRead(Machine.maxLingerBytes) } == .close)
        #expect(machine.isClosed)
    }

    @Test func timeoutsInEachState() {
        var idle = Machine(timeouts: Self.timeouts, now: 100)
        #expect(step(&idle) { $0.timedOut(now: 110) } == .close)
        #expect(idle.isClosed && idle.deadline == 0)

        var reading = Machine(timeouts: Self.timeouts, now: 100)
        reading.headStarted(now: 101)
        #expect(step(&reading) { $0.timedOut(now: 111) } == .refuse)
        #expect(reading.state == .writing(then: .linger))
        #expect(reading.deadline == 151)

        var processing = Self.processing()
        #expect(step(&processing) { $0.timedOut(now: 500) } == .none)
        #expect(processing.isProcessing && processing.deadline == 0)

        var streaming = Self.processing()
        streaming.streamAwaitsDrain(now: 200)
        #expect(streaming.deadline == 240)
        #expect(step(&streaming) { $0.timedOut(now: 240) } == .close)

        var writing = Self.processing()
        _ = writing.responseWritten(outputPending: true, now: 200)
        #expect(step(&writing) { $0.timedOut(now: 240) } == .close)

        var lingering = Self.processing(keepAlive: false)
        lingering.linger(now: 200)
        #expect(step(&lingering) { $0.timedOut(now: 200 + Machine.Timeouts.linger) } == .close)

        var closed = Self.processing()
        closed.close()
        #expect(step(&closed) { $0.timedOut(now: 500) } == .none)
    }

    @Test func writeProgressPushesTheWriteDeadline() {
        var writing = Self.processing()
        _ = writing.responseWritten(outputPending: true, now: 200)
        writing.outputProgressed(now: 230)
        #expect(writing.deadline == 270)

        // A handler's own writes do not give it a deadline until its stream waits for the client.
        var processing = Self.processing()
        processing.outputProgressed(now: 230)
        #expect(processing.deadline == 0)
    }

    @Test func writeBackpressureSuspendsAndResumesTheStream() {
        var machine = Self.processing()
        machine.streamAwaitsDrain(now: 200)
        #expect(machine.state == .processing(keepAlive: true, awaitingDrain: true))
        machine.outputProgressed(now: 220)
        #expect(machine.deadline == 260)
        #expect(step(&machine) { $0.outputFlushed(now: 230) } == .resumeStream)
        #expect(machine.state == .processing(keepAlive: true, awaitingDrain: false))
        #expect(machine.deadline == 0)
        // Flushed again without a waiting stream: nothing to do.
        #expect(step(&machine) { $0.outputFlushed(now: 240) } == .none)
    }

    @Test func shutdownWhileIdleClosesNow() {
        var machine = Machine(timeouts: Self.timeouts, now: 100)
        #expect(step(&machine) { $0.shutdownBegun() } == .close)
        #expect(machine.isClosed)
    }

    @Test func shutdownWhileReadingAnswersThatRequestThenCloses() {
        var machine = Machine(timeouts: Self.timeouts, now: 100)
        machine.headStarted(now: 101)
        #expect(step(&machine) { $0.shutdownBegun() } == .none)
        #expect(machine.state == .reading(closeAfterAnswer: true))
        _ = machine.headReceived(expectation: .none, now: 102)
        #expect(machine.state == .reading(closeAfterAnswer: true))
        machine.requestReceived(keepAlive: true)
        #expect(!machine.keepsAlive)
    }

    @Test func shutdownWhileAHandlerRunsClosesAfterItsAnswer() {
        var machine = Self.processing()
        #expect(step(&machine) { $0.shutdownBegun() } == .none)
        #expect(machine.isProcessing && !machine.keepsAlive)
        #expect(step(&machine) { $0.responseWritten(outputPending: false, now: 200) } == .closeAfterAnswer)
    }

    @Test func shutdownWhileWritingClosesOnceFlushed() {
        var machine = Self.processing()
        _ = machine.responseWritten(outputPending: true, now: 200)
        #expect(step(&machine) { $0.shutdownBegun() } == .none)
        #expect(machine.state == .writing(then: .close))
        #expect(step(&machine) { $0.outputFlushed(now: 210) } == .closeAfterAnswer)

        // A refusal being written lingers whatever happens.
        var refusing = Machine(timeouts: Self.timeouts, now: 100)
        refusing.refuse(now: 100)
        #expect(step(&refusing) { $0.shutdownBegun() } == .none)
        #expect(refusing.state == .writing(then: .linger))
    }

    @Test func aClosedConnectionIgnoresLateEvents() {
        var machine = Self.processing()
        #expect(step(&machine) { $0.close() })
        #expect(step(&machine) { $0.responseWritten(outputPending: false, now: 200) } == .none)
        #expect(step(&machine) { $0.outputFlushed(now: 200) } == .none)
        #expect(step(&machine) { $0.shutdownBegun() } == .none)
        machine.refuse(now: 200)
        machine.linger(now: 200)
        #expect(machine.isClosed && machine.deadline == 0)
        #expect(!machine.acceptsInput && !machine.keepsInput && !machine.isProcessing)
    }
}
