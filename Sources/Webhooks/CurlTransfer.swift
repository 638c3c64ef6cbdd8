import CCurl
import CCurlShims
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One request in flight inside `CurlClient`, and the context its C callbacks receive.
///
/// Created by the caller, then owned by the client's thread, which alone touches its mutable state;
/// only `cancelRequested` is shared, behind a lock.
final class CurlTransfer: @unchecked Sendable {
    let request: OutgoingRequest
    let policy: AddressPolicy
    let excerptLimit: Int
    let cancelRequested = Mutex(false)
    var continuation: CheckedContinuation<TransferResult, Never>?

    var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    var started = ContinuousClock.now
    var body: [UInt8] = []
    var bodyTruncated = false
    var refusal: WebhookError?
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    init(request: OutgoingRequest, policy: AddressPolicy, excerptLimit: Int) {
        self.request = request
        self.policy = policy
        self.excerptLimit = excerptLimit
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        errorBuffer.deallocate()
        if let headerList { curl_slist_free_all(headerList) }
    }

    /// Resumes the waiting caller once; later calls are ignored.
    func complete(_ result: TransferResult) {
        continuation?.resume(returning: result)
        continuation = nil
    }

    /// Keeps the first `excerptLimit` bytes; beyond that the transfer is stopped, as nothing more is kept.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        let room = excerptLimit - body.count
        if bytes.count <= room {
            body.append(contentsOf: bytes)
            return bytes.count
        }
        body.append(contentsOf: bytes.prefix(room))
        bodyTruncated = true
        return 0
    }

    /// Opens the socket for an address libcurl is about to connect to, unless the policy refuses it.
    func openSocket(address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        let offset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr)!
        let socketAddress = UnsafeRawPointer(address) + offset
        guard let ip = IPAddress(socketAddress: socketAddress) else {
            refusal = WebhookError(.forbiddenAddress, "Only IPv4 and IPv6 destinations are allowed.")
            return CURL_SOCKET_BAD
        }
        if let refused = policy.refusal(of: ip) {
            // The delivery's attempt log is read by viewers, who must not learn what a name resolves
            // to inside the network (the refusal at creation keeps it out of answers too).
            refusal = WebhookError(
                .forbiddenAddress, "The endpoint's host resolved to an address that is not public; webhooks go only to public addresses.",
                logDetail: refused.detail)
            return CURL_SOCKET_BAD
        }
        return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
    }

    /// libcurl's explanation of the last error, from the transfer's error buffer.
    var curlMessage: String { String(cString: errorBuffer) }
}

/// The C callbacks; each receives its `CurlTransfer` as the context pointer.
enum CurlCallbacks {
    static let write: curl_write_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.receive(UnsafeRawBufferPointer(start: data, count: size * count))
    }

    static let openSocket: curl_opensocket_callback = { context, _, address in
        guard let context, let address else { return CURL_SOCKET_BAD }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.openSocket(address: address)
    }
}
