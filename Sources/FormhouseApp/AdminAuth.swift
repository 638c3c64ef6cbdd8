import Crypto
import HTTPServer

/// Bearer-token check for every admin route.
///
/// Tokens are compared as SHA-256 digests with a constant-time loop over every configured token, so
/// neither the length nor the position of a mismatch leaks through timing. Tokens are never logged.
struct AdminAuth: Sendable {
    private let digests: [[UInt8]]

    init(tokens: [String]) {
        digests = tokens.map { Array(SHA256.hash(data: Array($0.utf8))) }
    }

    /// Wraps an admin handler so it runs only for a request with a valid token.
    func guarded(_ handler: @escaping @Sendable (Request) async throws -> Response) -> @Sendable (Request) async throws -> Response {
        { request in
            try authorize(request)
            return try await handler(request)
        }
    }

    func authorize(_ request: Request) throws {
        guard !digests.isEmpty else {
            throw APIProblem.unauthorized("No admin token is configured; set FORMHOUSE_ADMIN_TOKENS to enable the admin API.")
        }
        guard let header = request.headers["Authorization"] else {
            throw APIProblem.unauthorized("Send 'Authorization: Bearer <token>'.")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIProblem.unauthorized("Use the Bearer scheme: 'Authorization: Bearer <token>'.")
        }
        // RFC 6750 §2.1: one or more spaces after the scheme.
        let token = parts[1].drop { $0 == " " }
        let presented = Array(SHA256.hash(data: Array(token.utf8)))
        var matched: UInt8 = 0
        for digest in digests {
            var difference: UInt8 = 0
            for i in 0..<digest.count { difference |= digest[i] ^ presented[i] }
            matched |= difference == 0 ? 1 : 0
        }
        guard matched == 1 else { throw APIProblem.unauthorized("The token is not valid.", invalidToken: true) }
    }
}
