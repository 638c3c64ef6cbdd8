import HTTPServer

/// Serves `Public/` with the strict Content-Security-Policy on every answer, not only on HTML: an
/// SVG or XML file opened directly runs its scripts too. Only the files pay for it, not the API.
struct PageFiles: Responder {
    let files: StaticFiles

    func respond(to request: Request, context: inout AppContext) async throws -> Response {
        var response = files.respond(to: request, context: &context)
        response.headers.set("Content-Security-Policy", SecurityHeaders.contentSecurityPolicy)
        response.headers.set("X-Frame-Options", "DENY")
        return response
    }
}
