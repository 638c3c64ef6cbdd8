/// Why a transfer produced no response, with a stable code.
public struct TransferError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable codes; raw values never change.
    public enum Code: String, Sendable, Hashable {
        case timeout
        case resolve
        case connect
        /// The address connected to was refused by the `AddressPolicy`.
        case forbiddenAddress = "forbidden_address"
        case tls
        /// The URL's scheme is not allowed (only http and https are).
        case unsupportedProtocol = "unsupported_protocol"
        case send
        case receive
        case cancelled
        /// Nothing was sent: the request could not be signed (see `DeliveryJob.signingProblem`).
        case signing
        case other
    }

    /// What went wrong, as a stable code.
    public let code: Code
    /// libcurl's or the policy's explanation.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
