import CCurl
import CCurlShims
import Dispatch
import Synchronization

/// Sends S3 requests through libcurl's easy interface, each on a Dispatch worker thread.
///
/// A `TransferGate` bounds the transfers (and so the blocked threads) to `concurrency`; idle easy
/// handles are kept so that their connections are reused. Every request is signed by libcurl with
/// AWS Signature Version 4. Redirects are not followed, only http and https are spoken, a transfer
/// that moves no byte for 30 s is abandoned, and cancelling the calling task aborts the transfer.
final class CurlEasyClient: Sendable {
    private struct Handle: @unchecked Sendable {
        let easy: UnsafeMutableRawPointer
    }

    private static let globalInit: Void = {
        curl_global_init(Int(CURL_GLOBAL_ALL))
    }()

    private let signing: String
    private let username: String
    private let password: String
    private let gate: TransferGate
    private let idle = Mutex<[Handle]>([])

    /// A client signing as `username`/`password` with the `CURLOPT_AWS_SIGV4` parameter `signing`.
    init(signing: String, username: String, password: String, concurrency: Int) {
        _ = Self.globalInit
        self.signing = signing
        self.username = username
        self.password = password
        gate = TransferGate(slots: concurrency)
    }

    deinit {
        for handle in idle.withLock({ $0 }) { curl_easy_cleanup(handle.easy) }
    }

    /// Sends `request`; throws `unreachable` when no response arrived, `CancellationError` when the
    /// task was cancelled.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        await gate.acquire()
        defer { gate.release() }
        try Task.checkCancellation()
        let transfer = EasyTransfer(body: request.body, responseLimit: request.responseLimit)
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPResponse, any Error>, Never>) in
                DispatchQueue.global().async {
                    continuation.resume(returning: self.perform(request, transfer))
                }
            }
        } onCancel: {
            transfer.cancelled.store(true, ordering: .relaxed)
        }
        return try outcome.get()
    }

    private func perform(_ request: HTTPRequest, _ transfer: EasyTransfer) -> Result<HTTPResponse, any Error> {
        guard let easy = idle.withLock({ $0.popLast()?.easy }) ?? curl_easy_init() else {
            return .failure(BlobStorageError.unreachable("libcurl could not create a handle."))
        }
        var headers: UnsafeMutablePointer<curl_slist>?
        defer {
            curl_slist_free_all(headers)
            curl_easy_reset(easy)
            idle.withLock { $0.append(Handle(easy: easy)) }
        }
        // libcurl's own `Expect: 100-continue` stays: an empty `Expect:` to drop it would be signed
        // by libcurl 7.88 as a header the request then lacks, and every upload would be refused.
        for header in request.headers {
            headers = curl_slist_append(headers, "\(header.name): \(header.value)")
        }
        configure(easy, request, transfer, headers)
        let code = curl_easy_perform(easy)
        if code == CURLE_ABORTED_BY_CALLBACK { return .failure(CancellationError()) }
        if code == CURLE_WRITE_ERROR && transfer.tooLong {
            return .failure(BlobStorageError.malformedResponse("the response body is longer than \(request.responseLimit) bytes."))
        }
        guard code == CURLE_OK else {
            let detail = transfer.curlMessage
            return .failure(BlobStorageError.unreachable(detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail))
        }
        var status = 0
        ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return .success(HTTPResponse(
            status: status,
            etag: Self.header("ETag", of: easy),
            contentLength: Self.header("Content-Length", of: easy).flatMap { Int($0) },
            body: transfer.received
        ))
    }

    private func configure(
        _ easy: UnsafeMutableRawPointer, _ request: HTTPRequest, _ transfer: EasyTransfer, _ headers: UnsafeMutablePointer<curl_slist>?
    ) {
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        ccurl_easy_setopt_string(easy, CURLOPT_URL, request.url)
        ccurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        ccurl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        ccurl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        ccurl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, 10_000)
        // No overall timeout, as parts are large and links slow; a stalled transfer is cut instead.
        ccurl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1)
        ccurl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, 30)
        ccurl_easy_setopt_string(easy, CURLOPT_AWS_SIGV4, signing)
        ccurl_easy_setopt_string(easy, CURLOPT_USERNAME, username)
        ccurl_easy_setopt_string(easy, CURLOPT_PASSWORD, password)
        ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headers)
        ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer)
        ccurl_easy_setopt_write_function(easy, EasyTransfer.write)
        ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        ccurl_easy_setopt_long(easy, CURLOPT_NOPROGRESS, 0)
        ccurl_easy_setopt_xferinfo_function(easy, EasyTransfer.progress)
        ccurl_easy_setopt_pointer(easy, CURLOPT_XFERINFODATA, context)
        switch request.method {
        case "GET":
            break
        case "HEAD":
            ccurl_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
        case "PUT", "POST":
            ccurl_easy_setopt_long(easy, CURLOPT_UPLOAD, 1)
            ccurl_easy_setopt_off_t(easy, CURLOPT_INFILESIZE_LARGE, curl_off_t(request.body.count))
            ccurl_easy_setopt_read_function(easy, EasyTransfer.read)
            ccurl_easy_setopt_pointer(easy, CURLOPT_READDATA, context)
            ccurl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method)
        default:
            ccurl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method)
        }
    }

    private static func header(_ name: String, of easy: UnsafeMutableRawPointer) -> String? {
        var header: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(easy, name, 0, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK, let value = header?.pointee.value else {
            return nil
        }
        return String(cString: value)
    }
}

/// The state of one transfer that libcurl's callbacks see. Touched by the transfer's thread only,
/// apart from `cancelled`.
private final class EasyTransfer: @unchecked Sendable {
    let body: [UInt8]
    var sent = 0
    let responseLimit: Int
    var received: [UInt8] = []
    var tooLong = false
    let cancelled = Atomic(false)
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    init(body: [UInt8], responseLimit: Int) {
        self.body = body
        self.responseLimit = responseLimit
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        errorBuffer.deallocate()
    }

    /// libcurl's explanation of the last error.
    var curlMessage: String { String(cString: errorBuffer) }

    static let read: curl_read_callback = { buffer, size, count, context in
        guard let buffer, let context else { return 0 }
        let transfer = Unmanaged<EasyTransfer>.fromOpaque(context).takeUnretainedValue()
        let length = min(size * count, transfer.body.count - transfer.sent)
        if length == 0 { return 0 }
        transfer.body.withUnsafeBytes { body in
            UnsafeMutableRawPointer(buffer).copyMemory(from: body.baseAddress! + transfer.sent, byteCount: length)
        }
        transfer.sent += length
        return length
    }

    static let write: curl_write_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let transfer = Unmanaged<EasyTransfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        if transfer.received.count + length > transfer.responseLimit {
            transfer.tooLong = true
            return 0
        }
        transfer.received.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
        return length
    }

    static let progress: curl_xferinfo_callback = { context, _, _, _, _ in
        guard let context else { return 0 }
        return Unmanaged<EasyTransfer>.fromOpaque(context).takeUnretainedValue().cancelled.load(ordering: .relaxed) ? 1 : 0
    }
}
