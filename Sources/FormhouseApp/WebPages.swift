import HTTPServer

/// The web renderer (`/f/{id}`) and the console (`/admin`): single pages from `Public/` whose scripts
/// read the form id from the URL, so every id maps to the same file.
struct WebPages {
    let files: PageFiles

    func register(on router: inout Router<AppContext>) {
        for method in [HTTPMethod.get, .head] {
            router.on(method, "/f/{id}") { request, context in try await page("/form.html", request, context) }
            router.on(method, "/admin") { request, context in try await page("/admin/index.html", request, context) }
        }
    }

    /// The page's file, counted under the page's route rather than as a static file: the handler's
    /// copy of the context takes the file's route name, not the request's.
    private func page(_ path: String, _ request: Request, _ context: AppContext) async throws -> Response {
        var inner = request
        inner.path = path
        var context = context
        return try await files.respond(to: inner, context: &context)
    }
}
