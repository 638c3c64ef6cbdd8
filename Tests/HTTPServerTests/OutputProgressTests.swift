@testable import HTTPServer
import Testing

/// Telling a slow reader from a stalled one, by our queue and the kernel's.
@Suite struct OutputProgressTests {
    static let second: UInt64 = 1_000_000_000

    @Test func outputThatDoesNotMoveForASecondIsStalled() {
        var progress = OutputProgress()
        progress.moved(at: 10 * Self.second)
        #expect(!progress.isStalled(at: 10 * Self.second + Self.second / 2))
        #expect(progress.isStalled(at: 11 * Self.second))
    }

    @Test func readingFromTheKernelQueueCountsBy16KiB() {
        var progress = OutputProgress()
        progress.moved(at: 0)
        let start = 10 * Self.second
        // The first look is stale: it counts as progress and sets the baseline.
        progress.noteKernelQueue(unsent: 100_000, at: start)
        #expect(progress.lastMoved == start)
        // Less than 16 KiB read is not progress.
        progress.noteKernelQueue(unsent: 90_000, at: start + Self.second / 10)
        #expect(progress.lastMoved == start)
        progress.noteKernelQueue(unsent: 100_000 - 16 * 1024, at: start + 2 * Self.second / 10)
        #expect(progress.lastMoved == start + 2 * Self.second / 10)
    }

    @Test func aGrowingKernelQueueMovesTheBaselineWithoutCountingAsProgress() {
        var progress = OutputProgress()
        let start = 10 * Self.second
        progress.noteKernelQueue(unsent: 10_000, at: start)
        progress.noteKernelQueue(unsent: 200_000, at: start + Self.second / 10)
        #expect(progress.lastMoved == start)
        progress.noteKernelQueue(unsent: 200_000 - 16 * 1024, at: start + 2 * Self.second / 10)
        #expect(progress.lastMoved == start + 2 * Self.second / 10)
    }
}
