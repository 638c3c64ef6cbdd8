import HTTPServer

/// The web renderer (`/f/{id}`) and the console (`/admin`): single pages from `Public/` whose scripts
/// read the form id from the URL, so every id maps to the same file.
struct WebPages {
    let files: PageFiles

    func register(on router: inout Router) {
        for method in [HTTPMethod.get, .head] {
            router.on(method, "/f/{id}") { try await page("/form.html", $0) }
            router.on(method, "/admin") { try await page("/admin/index.html", $0) }
        }
    }

    private func page(_ path: String, _ request: Request) async throws -> Response {
        var inner = request
        inner.path = path
        return try await files.respond(to: inner)
    }
}
