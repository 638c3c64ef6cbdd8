#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address, as bytes in network order.
public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// An IPv4 address; the first octet is the most significant byte.
    case v4(UInt32)
    /// An IPv6 address's 16 bytes.
    case v6([UInt8])

    /// Parses a numeric address in its standard text form (`192.0.2.1`, `2001:db8::1`, `::ffff:10.0.0.1`).
    ///
    /// Brackets around an IPv6 address (`[::1]`) and a zone (`fe80::1%eth0`) are accepted.
    public init?(_ text: some StringProtocol) {
        var text = String(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if let percent = text.firstIndex(of: "%") { text = String(text[..<percent]) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self = .v4(UInt32(bigEndian: v4.s_addr))
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self = .v6(withUnsafeBytes(of: &v6) { Array($0) })
            return
        }
        return nil
    }

    /// Reads the address of a `sockaddr_in` or `sockaddr_in6`; nil for other families.
    public init?(socketAddress: UnsafeRawPointer) {
        let family = socketAddress.load(as: sockaddr.self).sa_family
        switch Int32(family) {
        case AF_INET:
            let address = socketAddress.load(as: sockaddr_in.self)
            self = .v4(UInt32(bigEndian: address.sin_addr.s_addr))
        case AF_INET6:
            var address = socketAddress.load(as: sockaddr_in6.self).sin6_addr
            self = .v6(withUnsafeBytes(of: &address) { Array($0) })
        default:
            return nil
        }
    }

    public var description: String {
        switch self {
        case .v4(let value):
            return "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
        case .v6(let bytes):
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
