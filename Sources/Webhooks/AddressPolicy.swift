import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decides which destinations webhooks may reach: the guard against server-side request forgery.
///
/// By default only `https` URLs whose every address is public are allowed. `allowInsecure` permits
/// `http`; `allowPrivate` permits private, loopback and reserved ranges (tests and intranets).
/// Link-local (cloud metadata services live there), multicast, broadcast and unspecified addresses
/// are never allowed. IPv6 forms that embed an IPv4 address are judged by that address.
public struct AddressPolicy: Sendable, Hashable {
    /// What kind of address something is; raw values are stable and appear in error text.
    public enum Category: String, Sendable, Hashable {
        case global = "public"
        case `private` = "private"
        case loopback
        case linkLocal = "link-local"
        case multicast
        case unspecified
        case broadcast
        /// Documentation, benchmarking, protocol-assignment and other ranges not routed on the internet.
        case reserved
    }

    /// Allows `http` URLs as well as `https`.
    public var allowInsecure: Bool
    /// Allows private, loopback and reserved addresses.
    public var allowPrivate: Bool

    /// Creates a policy; the defaults are the strict production policy.
    public init(allowInsecure: Bool = false, allowPrivate: Bool = false) {
        self.allowInsecure = allowInsecure
        self.allowPrivate = allowPrivate
    }

    /// Only `https` to public addresses.
    public static let strict = AddressPolicy()

    /// Whether a connection to `address` is allowed.
    public func allows(_ address: IPAddress) -> Bool {
        refusal(of: address) == nil
    }

    /// Throws `forbidden_address` with an explanation when a connection to `address` is not allowed.
    public func check(_ address: IPAddress) throws(WebhookError) {
        if let refusal = refusal(of: address) { throw refusal }
    }

    /// The error to report for `address`, or nil when it is allowed.
    public func refusal(of address: IPAddress) -> WebhookError? {
        let (category, embedded) = Self.classify(address)
        let permitted: Bool
        let hint: String
        switch category {
        case .global:
            return nil
        case .private, .loopback, .reserved:
            permitted = allowPrivate
            hint = "webhooks go only to public addresses unless the configuration allows private ones"
        case .linkLocal, .multicast, .unspecified, .broadcast:
            permitted = false
            hint = "webhooks never go to such addresses"
        }
        if permitted { return nil }
        let via = embedded.map { ", embedding \($0)" } ?? ""
        return WebhookError(.forbiddenAddress, "\(address) is not a public address (\(category.rawValue)\(via)); \(hint).")
    }

    /// `url` without a user or password, for showing a stored endpoint: ``validate(url:)`` refuses
    /// credentials, but a database written by an older server may still hold some.
    public static func withoutCredentials(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.user != nil || components.password != nil else { return url }
        components.user = nil
        components.password = nil
        // Never the original: it holds the password.
        return components.string ?? "(a URL with credentials)"
    }

    /// Checks a URL given for a new endpoint: scheme, host, and every address the host resolves to.
    ///
    /// Resolves the host with `getaddrinfo`, so it blocks for as long as DNS takes. The same policy
    /// is enforced again on the address each delivery connects to.
    public func validate(url text: String) throws(WebhookError) -> URL {
        // The messages do not repeat the URL: it may carry a password.
        // Spaces and control characters (CR LF, tab, NUL) are not in any URL: libcurl refuses them at
        // send time, so such an endpoint would only fail for a day, and SQLite cuts text at a NUL.
        guard !text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw WebhookError(.invalidURL, "The webhook URL contains a space or a control character; percent-encode it (%20).")
        }
        guard let components = URLComponents(string: text), let url = components.url, let scheme = components.scheme?.lowercased() else {
            throw WebhookError(.invalidURL, "The webhook URL is not an absolute URL.")
        }
        // Credentials in the URL would be listed with every endpoint and delivery; receivers tell
        // Formhouse's requests by their signature instead.
        guard components.user == nil, components.password == nil else {
            throw WebhookError(.invalidURL, "Webhook URLs may not carry a user or password (user:password@host); receivers check the signature instead.")
        }
        switch scheme {
        case "https":
            break
        case "http" where allowInsecure:
            break
        default:
            throw WebhookError(.insecureScheme, "Webhook URLs must use https\(allowInsecure ? " or http" : ""), not \(scheme).")
        }
        guard let host = components.host, !host.isEmpty else {
            throw WebhookError(.invalidURL, "The webhook URL has no host.")
        }
        // As with spaces: libcurl refuses a port outside 1–65535 at every send.
        if let port = components.port, !(1...65_535).contains(port) {
            throw WebhookError(.invalidURL, "The webhook URL's port must be 1–65535, not \(port).")
        }
        if let address = IPAddress(host) {
            try check(address)
            return url
        }
        let addresses = try Self.resolve(host)
        for address in addresses {
            if let refusal = refusal(of: address) {
                // Which address, the answer does not say: whoever may add endpoints could otherwise map
                // the private network by the names they try. The log may.
                throw WebhookError(
                    .forbiddenAddress, "\(host) resolves to an address that is not public; webhooks go only to public addresses.",
                    logDetail: "\(host) resolves to a forbidden address: \(refusal.detail)")
            }
        }
        return url
    }

    /// The category of an address and, for IPv6 forms that embed one, the IPv4 address judged instead.
    public static func classify(_ address: IPAddress) -> (category: Category, embedded: IPAddress?) {
        switch address {
        case .v4(let value):
            return (category(ofV4: value), nil)
        case .v6(let bytes):
            if let embedded = embeddedV4(bytes) {
                return (category(ofV4: embedded), .v4(embedded))
            }
            return (category(ofV6: bytes), nil)
        }
    }

    private static func category(ofV4 a: UInt32) -> Category {
        func within(_ network: UInt32, _ prefix: UInt32) -> Bool {
            a >> (32 - prefix) == network >> (32 - prefix)
        }
        if a == 0xFFFF_FFFF { return .broadcast }
        if within(0x0000_0000, 8) { return .unspecified }          // 0.0.0.0/8 "this network"
        if within(0x7F00_0000, 8) { return .loopback }             // 127.0.0.0/8
        if within(0x0A00_0000, 8) || within(0xAC10_0000, 12) || within(0xC0A8_0000, 16)
            || within(0x6440_0000, 10) {                           // RFC 1918 and 100.64.0.0/10 CGNAT
            return .private
        }
        if within(0xA9FE_0000, 16) { return .linkLocal }           // 169.254.0.0/16
        if within(0xE000_0000, 4) { return .multicast }            // 224.0.0.0/4
        if within(0xC000_0000, 24) || within(0xC000_0200, 24)      // IETF assignments, TEST-NET-1
            || within(0xC058_6300, 24) || within(0xC612_0000, 15)  // 6to4 relay, benchmarking
            || within(0xC633_6400, 24) || within(0xCB00_7100, 24)  // TEST-NET-2, TEST-NET-3
            || within(0xF000_0000, 4) {                            // 240.0.0.0/4
            return .reserved
        }
        return .global
    }

    private static func category(ofV6 b: [UInt8]) -> Category {
        if b.allSatisfy({ $0 == 0 }) { return .unspecified }
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }
        if b[0] == 0xFF { return .multicast }
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return .linkLocal }  // fe80::/10
        if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return .private }    // fec0::/10, deprecated site-local
        if b[0] & 0xFE == 0xFC { return .private }                    // fc00::/7 unique local
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { return .reserved }  // 2001:db8::/32
        if b[0] == 0x3F && b[1] == 0xFF && b[2] & 0xF0 == 0 { return .reserved }  // 3fff::/20, documentation (RFC 9637)
        if b[0] == 0x20 && b[1] == 0x01 && b[2] & 0xFE == 0 { return .reserved }  // 2001::/23 incl. Teredo
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B { return .reserved }  // 64:ff9b:1::/48
        if b[0] & 0xE0 != 0x20 { return .reserved }                   // outside 2000::/3 global unicast
        return .global
    }

    /// The IPv4 address inside IPv4-mapped, IPv4-translated, IPv4-compatible, NAT64 and 6to4 addresses.
    private static func embeddedV4(_ b: [UInt8]) -> UInt32? {
        func v4(at offset: Int) -> UInt32 {
            UInt32(b[offset]) << 24 | UInt32(b[offset + 1]) << 16 | UInt32(b[offset + 2]) << 8 | UInt32(b[offset + 3])
        }
        let zeroPrefix10 = b[0..<10].allSatisfy { $0 == 0 }
        if zeroPrefix10 && b[10] == 0xFF && b[11] == 0xFF { return v4(at: 12) }                  // ::ffff:a.b.c.d
        if b[0..<8].allSatisfy({ $0 == 0 }) && b[8] == 0xFF && b[9] == 0xFF && b[10] == 0 && b[11] == 0 {
            return v4(at: 12)                                                                      // ::ffff:0:a.b.c.d
        }
        if zeroPrefix10 && b[10] == 0 && b[11] == 0 && v4(at: 12) > 1 { return v4(at: 12) }      // ::a.b.c.d
        if b[0..<4] == [0x00, 0x64, 0xFF, 0x9B] && b[4..<12].allSatisfy({ $0 == 0 }) { return v4(at: 12) }  // 64:ff9b::/96
        if b[0] == 0x20 && b[1] == 0x02 { return v4(at: 2) }                                       // 2002::/16 6to4
        return nil
    }

    private static func resolve(_ host: String) throws(WebhookError) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw WebhookError(.unresolvableHost, "\(host) does not resolve: \(String(cString: gai_strerror(status))).")
        }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let socketAddress = current.pointee.ai_addr, let address = IPAddress(socketAddress: socketAddress) {
                addresses.append(address)
            }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            throw WebhookError(.unresolvableHost, "\(host) has no IPv4 or IPv6 address.")
        }
        return addresses
    }
}
