import Foundation
import PostgresFormStore
import Synchronization

/// Shows `formhouse migrate`'s progress on standard error: on a terminal, one bar per table that
/// is redrawn after each batch (rows done of the total, and the rate); otherwise one line per table
/// once it is copied, so a log gets no control characters.
final class CopyProgressDisplay: Sendable {
    private let isTerminal = isatty(STDERR_FILENO) == 1
    /// When the current table's copy began.
    private let started = Mutex(ContinuousClock.now)

    func show(_ progress: StoreCopyProgress) {
        let now = ContinuousClock.now
        let elapsed = started.withLock { started in
            if progress.copied == 0 && !progress.finished { started = now }
            return started.duration(to: now)
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Int(Double(progress.copied) / seconds) : 0
        // Padded to the longest table name (form_rejection_stats); a longer one is never cut.
        let name = progress.table.padding(toLength: max(20, progress.table.count), withPad: " ", startingAt: 0)
        if isTerminal {
            let width = 30
            let filled = progress.total == 0 ? width : min(width, width * progress.copied / progress.total)
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            // Carriage return and erase to the end of the line: the bar is redrawn in place.
            let line = "\r\(name) [\(bar)] \(progress.copied)/\(progress.total) rows, \(rate) rows/s\u{1B}[K"
            write(progress.finished ? line + "\n" : line)
        } else if progress.finished {
            write("\(name) \(progress.copied) rows in \(String(format: "%.1f", seconds)) s (\(rate) rows/s)\n")
        }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
