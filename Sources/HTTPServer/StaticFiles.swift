import Glibc

/// Serves files under a directory for GET and HEAD: content types, `ETag`/`Last-Modified` with 304,
/// `index.html` for directories, and nothing outside the root (`..`, `%2e%2e`, backslashes and symlinks are refused).
public struct StaticFiles: Sendable {
    /// Nil when the root did not resolve: then nothing is served. Kept as given, an empty root made
    /// the containment check a test for a leading "/", which every path passes.
    private let root: String?

    /// Serves the files under `root` (resolved once, symlinks included); a root that does not exist
    /// when this is made serves nothing.
    public init(root: String) {
        if !root.isEmpty, let resolved = realpath(root, nil) {
            self.root = String(cString: resolved)
            free(resolved)
        } else {
            self.root = nil
        }
    }

    /// The route its answers for files that exist are counted and logged under: one label for every
    /// file, so the label set stays bounded. Paths it does not serve (404, 400) carry none.
    public static let routePattern = "static"

    /// The answer for `request`; files that exist are named ``routePattern`` in `context`.
    public func respond(to request: Request, context: inout some RequestContext) -> Response {
        let response = answer(request)
        if response.status != 404, response.status != 400 { context.core.routePattern = Self.routePattern }
        return response
    }

    private func answer(_ request: Request) -> Response {
        let relative: String
        switch Self.relativePath(request.path) {
        case .malformed:
            return .standardProblem(status: 400, detail: "The path's percent-encoding is malformed.")
        case .outside:
            return Self.notFound(request)
        case .inside(let path):
            relative = path
        }
        guard let root else { return Self.notFound(request) }
        var path = root + "/" + relative
        var info = stat()
        // Symlinks may point anywhere; only what resolves inside the root exists here, for every
        // method (a 405 must not confirm a file outside).
        guard stat(path, &info) == 0, var real = resolvedInside(path) else { return Self.notFound(request) }
        guard request.method == .get || request.method == .head || request.method == .options else {
            var response = Response.standardProblem(status: 405, detail: "\(request.path) can only be read (GET or HEAD).")
            response.headers.set("Allow", "GET, HEAD, OPTIONS")
            return response
        }
        var isDirectoryIndex = false
        if info.st_mode & S_IFMT == S_IFDIR {
            guard request.path.hasSuffix("/") else {
                // Relative links in the index only work below a trailing slash. Built from one leading
                // slash: "//admin/" would send a browser to the host "admin".
                let location = "/" + request.path.drop { $0 == "/" } + "/"
                return Response(status: 301, headers: ["Location": location])
            }
            path += (path.hasSuffix("/") ? "" : "/") + "index.html"
            guard stat(path, &info) == 0, let index = resolvedInside(path) else { return Self.notFound(request) }
            real = index
            isDirectoryIndex = true
        }
        // A file named with a trailing slash ("/index.html/") is not there, as for any web server.
        guard info.st_mode & S_IFMT == S_IFREG, isDirectoryIndex || !request.path.hasSuffix("/") else {
            return Self.notFound(request)
        }
        // Answered only for what a GET would find.
        if request.method == .options {
            return Response(status: 204, headers: ["Allow": "GET, HEAD, OPTIONS"])
        }
        let modified = Int(info.st_mtim.tv_sec)
        let etag = "\"\(String(Int(info.st_size), radix: 16))-\(String(modified, radix: 16))-\(String(Int(info.st_mtim.tv_nsec), radix: 16))\""
        let headers: HTTPHeaders = [
            "Content-Type": Self.contentType(for: real),
            "ETag": etag,
            "Last-Modified": HTTPDate.format(epochSeconds: modified),
            "Cache-Control": "no-cache",
        ]
        if let match = request.headers.list("If-None-Match") {
            let tags = HTTPParser.tokens(match)
            if match == "*" || tags.contains(etag) || tags.contains("W/" + etag) {
                return Response(status: 304, headers: headers)
            }
        } else if let since = request.headers["If-Modified-Since"].flatMap(HTTPDate.parse), modified <= since {
            return Response(status: 304, headers: headers)
        }
        // HEAD reads the file too: the server drops the body but keeps its Content-Length.
        guard let bytes = try? FileBytes.read(real, limit: Int.max) else {
            return .standardProblem(status: 404, detail: "No resource at \(request.path).")
        }
        return Response(status: 200, headers: headers, body: .bytes(bytes))
    }

    /// `path` with its symlinks resolved, if that is the root or below it.
    private func resolvedInside(_ path: String) -> String? {
        guard let root, let resolved = realpath(path, nil) else { return nil }
        let real = String(cString: resolved)
        free(resolved)
        // A symlink to a hidden name inside the root is as hidden as the name itself.
        guard real == root || (real.hasPrefix(root + "/") && !Self.hasHiddenName(real.dropFirst(root.count))) else { return nil }
        return real
    }

    /// Whether a path below the root ("/a/.git/config") names a hidden file or directory.
    static func hasHiddenName(_ path: Substring) -> Bool {
        path.split(separator: "/").contains(where: isHidden)
    }

    /// A hidden name (`.git`, `.env`, and `.`, `..`), except `.well-known` (RFC 8615: security.txt,
    /// ACME challenges), which is meant to be served.
    static func isHidden(_ segment: Substring) -> Bool {
        segment.hasPrefix(".") && segment != ".well-known"
    }

    private static func notFound(_ request: Request) -> Response {
        .standardProblem(status: 404, detail: "No resource at \(request.path).")
    }

    enum RelativePath: Equatable {
        /// Decoded, below the root.
        case inside(String)
        /// `..`, `.`, a backslash or NUL: it could step outside the root or mean another file. Also a
        /// hidden name (`.git`, `.env`): what a deployment leaves there is not meant to be served.
        case outside
        /// Percent-encoding that does not decode (`%ZZ`, a cut `%4`, invalid UTF-8).
        case malformed
    }

    /// The decoded path below the root.
    static func relativePath(_ path: String) -> RelativePath {
        guard path.hasPrefix("/") else { return .outside }
        guard let decoded = PercentDecoding.decode(path.utf8, plusAsSpace: false) else { return .malformed }
        guard !decoded.utf8.contains(0), !decoded.contains("\\") else { return .outside }
        var parts: [Substring] = []
        for segment in decoded.split(separator: "/", omittingEmptySubsequences: true) {
            if isHidden(segment) { return .outside }
            parts.append(segment)
        }
        return .inside(parts.joined(separator: "/"))
    }

    static func contentType(for path: String) -> String {
        let name = path.split(separator: "/").last ?? ""
        let ext = name.contains(".") ? String(name.split(separator: ".").last ?? "").lowercased() : ""
        switch ext {
        case "html", "htm": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "json", "map": return "application/json"
        case "txt": return "text/plain; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "ico": return "image/x-icon"
        case "woff2": return "font/woff2"
        case "woff": return "font/woff"
        case "wasm": return "application/wasm"
        case "xml": return "application/xml"
        case "webmanifest": return "application/manifest+json"
        case "yaml", "yml": return "application/yaml"
        default: return "application/octet-stream"
        }
    }
}

/// Static files as a responder, for a router's `fallback`: paths no route serves are looked up as files.
public struct StaticFilesResponder<Context: RequestContext>: Responder {
    private let files: StaticFiles

    /// Answers with `files`.
    public init(_ files: StaticFiles) {
        self.files = files
    }

    public func respond(to request: Request, context: inout Context) async throws -> Response {
        files.respond(to: request, context: &context)
    }
}
