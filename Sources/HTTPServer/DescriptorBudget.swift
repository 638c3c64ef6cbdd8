import Glibc
import Logging

/// How many client connections the process's open-file limit leaves room for. Connections must not
/// take every descriptor: libdispatch opens `/proc` files to watch its thread pool, and stops the
/// whole process (SIGILL) when it cannot open one.
public enum DescriptorBudget {
    /// At least this many connections, however low the limit (it is then logged as too low).
    static let floor = 16

    /// Raises the soft open-file limit to the hard one: the soft one is often 1024 while the hard one
    /// is far higher, and each connection takes a descriptor (nginx and Go programs do the same). For
    /// the process, before the server starts: the cap below is computed from the limit then.
    public static func raiseOpenFileLimit(logger: Logger) {
        if let raised = raiseOpenFileLimit() {
            logger.info("open-file limit raised", metadata: ["from": "\(raised.from)", "to": "\(raised.to)"])
        }
    }

    /// Raises the soft open-file limit to the hard one; returns both when it did.
    @discardableResult
    static func raiseOpenFileLimit() -> (from: rlim_t, to: rlim_t)? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return nil }
        let soft = limit.rlim_cur
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return (soft, limit.rlim_max)
    }

    /// `configured`, or fewer when the soft `RLIMIT_NOFILE` minus `reserved` is lower.
    static func connections(configured: Int, reserved: Int, logger: Logger) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return configured }
        let descriptors = Int(clamping: limit.rlim_cur)
        let room = descriptors - reserved
        guard room < configured else { return configured }
        if room < floor {
            logger.error("the open-file limit leaves no room for connections; raise it (ulimit -n)", metadata: [
                "limit": "\(descriptors)", "reserved": "\(reserved)", "connections": "\(floor)"])
            return floor
        }
        logger.notice("connections capped by the open-file limit", metadata: [
            "limit": "\(descriptors)", "reserved": "\(reserved)", "connections": "\(room)"])
        return room
    }
}
