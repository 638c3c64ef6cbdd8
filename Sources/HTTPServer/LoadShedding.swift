/// How a connection's queued output has moved lately, to tell a client that reads slowly from one
/// that stopped reading.
struct OutputProgress {
    /// A writer whose output has not moved for this long is stalled.
    static let stallTime: UInt64 = 1_000_000_000
    /// Reading at least this much from the kernel's send queue since it was last counted is progress.
    static let kernelProgressBytes = 16 * 1024
    /// A look at the kernel's queue older than this says nothing about the client now.
    static let staleLook: UInt64 = 300_000_000

    /// When queued output last moved (or started waiting).
    private(set) var lastMoved: UInt64 = 0
    /// The kernel's unsent bytes when reading was last counted, and when it was looked at last.
    private var unsentBaseline = Int.max
    private var unsentCheckedAt: UInt64 = 0

    mutating func moved(at now: UInt64) {
        lastMoved = now
    }

    /// Counts the client's reading from the kernel's send queue as well (`unsent` bytes, negative when
    /// unknown; asked only while the server's queued output is over budget), so a steady reader is
    /// kept and one that takes a segment now and then is not.
    mutating func noteKernelQueue(unsent: Int, at now: UInt64) {
        // A look from an earlier episode (or none) says nothing now: start afresh, as progress.
        let stale = now - unsentCheckedAt > Self.staleLook
        if stale { lastMoved = now }
        if unsent < 0 || stale || unsent > unsentBaseline {
            // Also when our own flushing grew the kernel's queue: measure from there.
            unsentBaseline = unsent >= 0 ? unsent : Int.max
        } else if unsentBaseline - unsent >= Self.kernelProgressBytes {
            lastMoved = now
            unsentBaseline = unsent
        }
        unsentCheckedAt = now
    }

    func isStalled(at now: UInt64) -> Bool {
        now - lastMoved >= Self.stallTime
    }
}

/// One loop's part in keeping queued responses within `maxQueuedOutputBytes`: while the server's
/// total is over it, stalled writers (see ``OutputProgress``) are closed, largest first, and only
/// while this loop holds the largest of all loops' (each loop publishes its own), so the server
/// sheds the fewest and biggest answers, however fast a flood comes, and not whatever one loop
/// holds. Reading counts by the kernel's queue as well as ours: the kernel wakes a writer only once
/// a third of a send buffer of megabytes is free, so a steady reader's queue here can rest longer
/// than a second.
struct LoadShedder {
    /// Whether this loop has a stalled writer published in `ServerCore.publishStalled`.
    private var published = false

    /// Runs at each sweep of `loop`.
    mutating func sweep(_ connections: [Connection?], loop: ObjectIdentifier, server: ServerCore) {
        if server.queuedOutput.load(ordering: .relaxed) > server.maxQueuedOutputBytes {
            shedLargestStalledWriters(connections, loop: loop, server: server)
        } else if published {
            published = false
            server.publishStalled(0, by: loop)
        }
    }

    private mutating func shedLargestStalledWriters(_ connections: [Connection?], loop: ObjectIdentifier, server: ServerCore) {
        var stalled: [Connection] = []
        for case let connection? in connections where connection.queuedBytes > 0 && connection.isStalledWriter() {
            stalled.append(connection)
        }
        stalled.sort { $0.queuedBytes > $1.queuedBytes }
        var closed = 0
        var freed = 0
        for connection in stalled {
            guard server.queuedOutput.load(ordering: .relaxed) > server.maxQueuedOutputBytes,
                  server.publishStalled(connection.queuedBytes, by: loop) else { break }
            freed += connection.queuedBytes
            connection.close()
            closed += 1
        }
        let left = stalled.first { !$0.isClosed }?.queuedBytes ?? 0
        published = left > 0
        server.publishStalled(left, by: loop)
        if closed > 0 {
            server.logger.warning("queued responses over maxQueuedOutputBytes; closed connections that stopped reading", metadata: [
                "closed": "\(closed)", "freedBytes": "\(freed)", "totalQueuedBytes": "\(server.queuedOutput.load(ordering: .relaxed))",
            ])
        }
    }
}
