import Foundation
import PostgresNIO

/// Settings of ``PostgresFormStore``; the defaults are the production ones.
public struct PostgresStoreConfiguration: Sendable {
    /// The most submissions written in one group transaction.
    public var maxGroupSize: Int = 256
    /// The most bytes of raw bodies and values (values counted twice, for the webhook payloads that
    /// wrap them) in one group; a larger single submission still forms a group of its own.
    public var maxGroupBytes: Int = 32 << 20
    /// How long an idempotency key answers with its first submission, as in the SQLite store.
    public var idempotencyWindow: TimeInterval = 24 * 60 * 60
    /// How long an operation waits for a pooled connection before failing as unavailable: while the
    /// server is down the pool would keep a request waiting for up to a minute. It applies to each
    /// connection an operation tries (another is tried when one turns out closed).
    public var connectionWait: Duration = .seconds(3)
    /// Connections this store's pool opens at most (the notification listener has one more of its own).
    public var maxConnections: Int = 20
    /// How long one statement may run before the server cancels it, so that a stuck query cannot
    /// hold a connection for ever.
    public var statementTimeout: Duration = .seconds(30)
    /// How long an operation that got a connection is waited for before its caller is answered
    /// ``FormStore/StoreError/outcomeUnknown(_:)``: a statement on a connection whose server vanished
    /// can hang, while a live one is cancelled by the server after ``statementTimeout``. Twice the
    /// statement timeout unless set.
    public var answerWait: Duration {
        get { explicitAnswerWait ?? statementTimeout * 2 }
        set { explicitAnswerWait = newValue }
    }
    private var explicitAnswerWait: Duration?
    /// What opening the store does when the database cannot be reached.
    public var startup: Startup = .failFast

    /// What opening the store does when the database cannot be reached or migrated.
    public enum Startup: Sendable {
        /// The initializer throws the reason (commands, tests).
        case failFast
        /// The initializer returns a store that answers ``FormStore/StoreError/unavailable(_:)`` and
        /// keeps trying in the background, with a growing pause and a log line each time, until the
        /// database answers (a server that starts before its database).
        case keepTrying
    }

    /// How often the form change feed is read, so that a lost notification only delays a change.
    public var changePollInterval: Duration = .milliseconds(500)
    /// The first wait before the notification listener reconnects; it doubles up to ``maxListenerRetryDelay``.
    public var listenerRetryDelay: Duration = .milliseconds(250)
    public var maxListenerRetryDelay: Duration = .seconds(10)

    /// Runs inside each group transaction just before COMMIT, on its connection; a throw fails the
    /// group (tests only).
    var beforeGroupCommit: (@Sendable (PostgresConnection) async throws -> Void)?

    public init(
        maxGroupSize: Int = 256, idempotencyWindow: TimeInterval = 24 * 60 * 60, connectionWait: Duration = .seconds(3)
    ) {
        self.maxGroupSize = max(1, maxGroupSize)
        self.idempotencyWindow = idempotencyWindow
        self.connectionWait = connectionWait
    }
}
