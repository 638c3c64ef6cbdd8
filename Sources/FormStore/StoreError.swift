/// Why a store operation failed, in the store's own terms; callers decide what each case means to
/// their clients.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database could not be read or written (I/O error, lock timeout, store closed, failed
    /// group commit). Nothing of the failed operation is stored; the caller may retry later.
    case unavailable(String)
    /// A write failed in a way that leaves unknown whether it was stored (an I/O error at COMMIT: the
    /// log may hold it after a restart; a connection to the database server lost during COMMIT). The
    /// SQLite store takes no more writes until a restart, the PostgreSQL store goes on (the server
    /// keeps its log whole); a caller that retries with its idempotency key then learns which it was.
    case outcomeUnknown(String)
    /// A referenced row does not exist (for example an unknown form or form version).
    case notFound(String)
    /// The operation clashes with stored state (a duplicate id, an inactive endpoint).
    case conflict(String)
    /// A paging cursor that this store did not produce.
    case invalidCursor
    /// A delivery's lease was taken over by another owner.
    case leaseLost(String)
    /// A limit on stored rows would be passed (a form's webhook endpoints).
    case limitReached(String)
    /// A caller's condition on the form's current version did not hold; nothing was changed. Carries
    /// the live version, nil when there is none.
    case preconditionFailed(currentVersion: Int?)

    /// A stable machine-readable code.
    public var code: String {
        switch self {
        case .unavailable: "store_unavailable"
        case .outcomeUnknown: "store_outcome_unknown"
        case .notFound: "not_found"
        case .conflict: "conflict"
        case .invalidCursor: "invalid_cursor"
        case .leaseLost: "lease_lost"
        case .limitReached: "limit_reached"
        case .preconditionFailed: "precondition_failed"
        }
    }

    public var description: String {
        switch self {
        case .unavailable(let detail), .outcomeUnknown(let detail), .notFound(let detail), .conflict(let detail), .leaseLost(let detail),
             .limitReached(let detail):
            "\(code): \(detail)"
        case .invalidCursor:
            code
        case .preconditionFailed(let version):
            "\(code): the current version is \(version.map(String.init) ?? "none")"
        }
    }
}
