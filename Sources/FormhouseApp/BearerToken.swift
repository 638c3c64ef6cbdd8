import HTTPServer

extension Request {
    /// The token of `Authorization: Bearer <token>` (the scheme in any case, one or more spaces after
    /// it, RFC 6750 §2.1); nil without the field or with another scheme. Admin and draft tokens alike.
    var bearerToken: Substring? {
        guard let field = headers["Authorization"] else { return nil }
        let parts = field.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].drop { $0 == " " }
    }
}
