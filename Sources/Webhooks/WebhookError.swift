/// An error of the webhook machinery, with a stable code for API answers and logs.
public struct WebhookError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable error codes; their raw values never change.
    public enum Code: String, Sendable, Hashable {
        /// A secret is not `whsec_` followed by base64.
        case malformedSecret = "malformed_secret"
        /// A URL does not parse or has no host.
        case invalidURL = "invalid_url"
        /// A URL's scheme is not `https` (or `http` where insecure destinations are allowed).
        case insecureScheme = "insecure_scheme"
        /// A host name does not resolve.
        case unresolvableHost = "unresolvable_host"
        /// An address is private, loopback, link-local, multicast or otherwise not public.
        case forbiddenAddress = "forbidden_address"
        /// A secret-encryption key is missing, unreadable or not 32 bytes.
        case invalidKey = "invalid_key"
        /// A sealed secret does not decrypt with the key (wrong key or tampered data).
        case sealedSecretUnreadable = "sealed_secret_unreadable"
    }

    /// What went wrong, as a stable code.
    public let code: Code
    /// A sentence a person can act on.
    public let detail: String
    /// More than a client may be told, for the log only: the private address a host resolved to.
    public let logDetail: String?

    /// Creates an error with its code and explanation, and what only the log may hold.
    public init(_ code: Code, _ detail: String, logDetail: String? = nil) {
        self.code = code
        self.detail = detail
        self.logDetail = logDetail
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}
