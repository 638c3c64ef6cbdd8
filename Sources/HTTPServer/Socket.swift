import CEpoll
import Glibc

/// Listening sockets and address formatting.
enum Socket {
    /// Opens a non-blocking listening socket; returns it with the port actually bound.
    static func listen(host: String, port: Int, backlog: Int32) throws -> (fd: Int32, port: Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &results)
        guard status == 0, let first = results else {
            throw HTTPServerError(code: .resolveFailed, message: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(results) }
        let info = first.pointee
        let fd = socket(info.ai_family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw systemError(.socketFailed, "socket") }
        var one: Int32 = 1
        var zero: Int32 = 0
        let size = socklen_t(MemoryLayout<Int32>.size)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, size)
        if info.ai_family == AF_INET6 {
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &zero, size)
        }
        guard bind(fd, info.ai_addr, info.ai_addrlen) == 0 else {
            let error = systemError(.bindFailed, "bind \(host):\(port)")
            close(fd)
            throw error
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let error = systemError(.listenFailed, "listen")
            close(fd)
            throw error
        }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, boundPort(&address))
    }

    private static func boundPort(_ address: inout sockaddr_storage) -> Int {
        let family = address.ss_family
        return withUnsafePointer(to: &address) { pointer in
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    /// The IP address of a peer, as text.
    static func addressString(_ address: inout sockaddr_storage) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = address.ss_family
        withUnsafePointer(to: &address) { pointer in
            if family == sa_family_t(AF_INET6) {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    var raw = $0.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count))
                }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    var raw = $0.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count))
                }
            }
        }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // On a dual-stack socket IPv4 peers arrive as ::ffff:a.b.c.d; logs and rate limits want a.b.c.d.
        if text.hasPrefix("::ffff:"), text.contains(".") {
            return String(text.dropFirst(7))
        }
        return text
    }

    private static func systemError(_ code: HTTPServerError.Code, _ what: String) -> HTTPServerError {
        HTTPServerError(code: code, message: "\(what): \(String(cString: strerror(errno)))")
    }
}
