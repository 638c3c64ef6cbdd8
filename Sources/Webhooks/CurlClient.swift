import CCurl
import CCurlShims
import Foundation
import Synchronization

/// Sends HTTP POSTs through one libcurl multi handle driven by one dedicated thread.
///
/// Hundreds of transfers share the thread; connections are reused per host through the multi
/// handle's cache. Redirects are never followed, only http and https are spoken, certificates are
/// verified, the response body read is bounded, and every address connected to is checked against
/// the `AddressPolicy` when the socket is opened, so a host re-resolving to a forbidden address
/// (DNS rebinding) is refused too.
public final class CurlClient: Sendable {
    /// Limits and policy for every transfer of a client.
    public struct Configuration: Sendable {
        /// Which destinations may be connected to.
        public var policy: AddressPolicy
        /// Time allowed to establish a connection.
        public var connectTimeout: Duration
        /// Time allowed for the whole transfer, connection included.
        public var timeout: Duration
        /// How many response-body bytes are kept; a longer response is cut there.
        public var excerptLimit: Int
        /// Idle connections kept for reuse.
        public var connectionCacheSize: Int
        /// Connections opened to one host at most; 0 is unlimited.
        public var maxConnectionsPerHost: Int
        /// The `User-Agent` header.
        public var userAgent: String

        /// The defaults: 10 s timeouts, 64 KiB excerpts, strict address policy.
        public init(
            policy: AddressPolicy = .strict,
            connectTimeout: Duration = .seconds(10),
            timeout: Duration = .seconds(10),
            excerptLimit: Int = 64 * 1024,
            connectionCacheSize: Int = 1024,
            maxConnectionsPerHost: Int = 0,
            userAgent: String = "Formhouse-Webhooks/1"
        ) {
            self.policy = policy
            self.connectTimeout = connectTimeout
            self.timeout = timeout
            self.excerptLimit = excerptLimit
            self.connectionCacheSize = connectionCacheSize
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.userAgent = userAgent
        }
    }

    /// The limits and policy in force.
    public let configuration: Configuration
    private let engine: CurlEngine

    /// Starts the client's thread.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.engine = CurlEngine(configuration: configuration)
        let engine = self.engine
        let thread = Thread { engine.run() }
        thread.name = "formhouse.curl"
        thread.start()
    }

    deinit {
        engine.close()
    }

    /// Sends a POST and waits for its outcome; cancelling the task aborts the transfer.
    public func send(_ request: OutgoingRequest) async -> TransferResult {
        let transfer = CurlTransfer(request: request, policy: configuration.policy, excerptLimit: configuration.excerptLimit)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.continuation = continuation
                engine.submit(transfer)
            }
        } onCancel: {
            engine.cancel(transfer)
        }
    }

    /// Stops the thread; transfers still running end with a `cancelled` error.
    public func shutdown() {
        engine.close()
    }
}

/// The multi handle and its thread's loop. Everything but `inbox` is touched by that thread only.
final class CurlEngine: @unchecked Sendable {
    private struct Inbox {
        var added: [CurlTransfer] = []
        var cancelled: [CurlTransfer] = []
        var closed = false
    }

    private static let globalInit: Void = {
        curl_global_init(Int(CURL_GLOBAL_ALL))
    }()

    private let configuration: CurlClient.Configuration
    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private let protocols: String

    init(configuration: CurlClient.Configuration) {
        _ = Self.globalInit
        self.configuration = configuration
        self.multi = curl_multi_init()
        self.protocols = configuration.policy.allowInsecure ? "http,https" : "https"
        ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.connectionCacheSize)
        ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost)
    }

    // Wake-ups happen under the inbox lock and only while open: the loop frees the multi handle
    // after it has seen `closed` under that lock, so no wake-up can reach a freed handle.

    func submit(_ transfer: CurlTransfer) {
        let accepted = inbox.withLock { inbox in
            if inbox.closed { return false }
            inbox.added.append(transfer)
            curl_multi_wakeup(multi)
            return true
        }
        if !accepted {
            transfer.complete(TransferResult(status: nil, error: TransferError(.cancelled, "The webhook client is shut down.")))
        }
    }

    func cancel(_ transfer: CurlTransfer) {
        transfer.cancelRequested.withLock { $0 = true }
        inbox.withLock { inbox in
            if inbox.closed { return }
            inbox.cancelled.append(transfer)
            curl_multi_wakeup(multi)
        }
    }

    func close() {
        inbox.withLock { inbox in
            if inbox.closed { return }
            inbox.closed = true
            curl_multi_wakeup(multi)
        }
    }

    func run() {
        while true {
            let (added, cancelled, closed) = inbox.withLock { inbox in
                defer { inbox.added.removeAll(); inbox.cancelled.removeAll() }
                return (inbox.added, inbox.cancelled, inbox.closed)
            }
            for transfer in added { start(transfer) }
            for transfer in cancelled { abort(transfer, TransferError(.cancelled, "The delivery was cancelled.")) }
            if closed { break }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var code = CURLE_OK
            while let easy = ccurl_multi_next_done(multi, &code) {
                finish(easy, code: code)
            }
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        for transfer in Array(active.values) { abort(transfer, TransferError(.cancelled, "The webhook client is shut down.")) }
        for easy in idleHandles { curl_easy_cleanup(easy) }
        idleHandles.removeAll()
        curl_multi_cleanup(multi)
    }

    private func start(_ transfer: CurlTransfer) {
        if transfer.cancelRequested.withLock({ $0 }) {
            transfer.complete(TransferResult(status: nil, error: TransferError(.cancelled, "The delivery was cancelled.")))
            return
        }
        guard let easy = idleHandles.popLast() ?? curl_easy_init() else {
            transfer.complete(TransferResult(status: nil, error: TransferError(.other, "libcurl could not create a handle.")))
            return
        }
        configure(easy, for: transfer)
        transfer.easy = easy
        transfer.started = .now
        active[easy] = transfer
        curl_multi_add_handle(multi, easy)
    }

    private func configure(_ easy: UnsafeMutableRawPointer, for transfer: CurlTransfer) {
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        let request = transfer.request
        ccurl_easy_setopt_string(easy, CURLOPT_URL, request.url)
        ccurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        ccurl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        ccurl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, protocols)
        ccurl_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, protocols)
        // An empty proxy ignores http_proxy and friends: the policy must see the real destination.
        ccurl_easy_setopt_string(easy, CURLOPT_PROXY, "")
        ccurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1)
        ccurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2)
        ccurl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.wholeMilliseconds)
        ccurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, configuration.timeout.wholeMilliseconds)
        // Over TLS, ALPN tells at the handshake whether HTTP/2 can multiplex, so waiting for it is
        // cheap; over plain http it would hold every transfer to a host behind the first response.
        ccurl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, request.url.lowercased().hasPrefix("https:") ? 1 : 0)
        ccurl_easy_setopt_string(easy, CURLOPT_USERAGENT, configuration.userAgent)
        ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer)
        ccurl_easy_setopt_write_function(easy, CurlCallbacks.write)
        ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        ccurl_easy_setopt_opensocket_function(easy, CurlCallbacks.openSocket)
        ccurl_easy_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, context)
        ccurl_easy_setopt_long(easy, CURLOPT_POSTFIELDSIZE, request.body.count)
        _ = request.body.withUnsafeBufferPointer { body in
            // COPYPOSTFIELDS copies, so the body need not outlive this call; an empty body still POSTs.
            ccurl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: body.baseAddress ?? UnsafePointer(bitPattern: 1)))
        }
        // An empty Expect header stops libcurl from waiting for `100 Continue` on larger bodies.
        var list = curl_slist_append(nil, "Expect:")
        for header in request.headers {
            list = curl_slist_append(list, "\(header.name): \(header.value)")
        }
        transfer.headerList = list
        ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list)
    }

    private func finish(_ easy: UnsafeMutableRawPointer, code: CURLcode) {
        curl_multi_remove_handle(multi, easy)
        guard let transfer = active.removeValue(forKey: easy) else { return }
        let duration = ContinuousClock.now - transfer.started
        var status = 0
        ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var retryAfter: String?
        var header: UnsafeMutablePointer<curl_header>?
        if status > 0, curl_easy_header(easy, "Retry-After", 0, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK, let value = header?.pointee.value {
            retryAfter = String(cString: value)
        }
        let error = Self.error(for: code, transfer: transfer, status: status)
        recycle(easy)
        transfer.complete(TransferResult(
            status: status > 0 && error == nil ? status : nil,
            error: error,
            duration: duration,
            body: transfer.body,
            bodyTruncated: transfer.bodyTruncated,
            retryAfter: retryAfter
        ))
    }

    private func abort(_ transfer: CurlTransfer, _ error: TransferError) {
        guard let easy = transfer.easy, active.removeValue(forKey: easy) != nil else { return }
        curl_multi_remove_handle(multi, easy)
        let duration = ContinuousClock.now - transfer.started
        recycle(easy)
        transfer.complete(TransferResult(status: nil, error: error, duration: duration, body: transfer.body))
    }

    private func recycle(_ easy: UnsafeMutableRawPointer) {
        curl_easy_reset(easy)
        idleHandles.append(easy)
    }

    private static func error(for code: CURLcode, transfer: CurlTransfer, status: Int) -> TransferError? {
        if code == CURLE_OK { return nil }
        // Cutting a long body short is how the read is bounded; the response itself arrived.
        if code == CURLE_WRITE_ERROR, transfer.bodyTruncated, status > 0 { return nil }
        // A receiver that said 2xx has taken the delivery, even if its body then broke off: sending
        // it again would only make a duplicate.
        if code == CURLE_PARTIAL_FILE || code == CURLE_RECV_ERROR, (200..<300).contains(status) { return nil }
        if let refusal = transfer.refusal { return TransferError(.forbiddenAddress, refusal.detail) }
        let detail = transfer.curlMessage
        let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return TransferError(.timeout, message)
        case CURLE_COULDNT_RESOLVE_HOST: return TransferError(.resolve, message)
        case CURLE_COULDNT_CONNECT: return TransferError(.connect, message)
        case CURLE_UNSUPPORTED_PROTOCOL: return TransferError(.unsupportedProtocol, message)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return TransferError(.tls, message)
        case CURLE_SEND_ERROR: return TransferError(.send, message)
        case CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE: return TransferError(.receive, message)
        default: return TransferError(.other, message)
        }
    }
}
