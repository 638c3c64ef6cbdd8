import HTTPServer

/// `Cache-Control: no-store` on every answer under `/v1/admin`, refusals included: admin answers hold
/// submissions, secrets shown once and tokens' names, which no browser or proxy cache may keep.
struct AdminCacheControl: RequestHook {
    func didRespond(to request: Request, context: CoreRequestContext, response: inout Response, elapsed: Duration) {
        let path = request.path.utf8
        guard path.starts(with: "/v1/admin".utf8), path.count == 9 || path.dropFirst(9).first == UInt8(ascii: "/") else { return }
        response.headers.set("Cache-Control", "no-store")
    }
}
