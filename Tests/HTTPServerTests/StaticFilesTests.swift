import Foundation
import HTTPServer
import Logging
import Testing

@Suite struct StaticFilesTests {
    /// A temporary site: root/{index.html, app.css, sub/index.html, escape -> ../secret.txt}, and secret.txt beside root.
    static func makeSite() throws -> (base: URL, root: URL) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("static-\(UUID().uuidString)")
        let root = base.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("<h1>home</h1>".utf8).write(to: root.appendingPathComponent("index.html"))
        try Data("body{}".utf8).write(to: root.appendingPathComponent("app.css"))
        try Data("<h1>sub</h1>".utf8).write(to: root.appendingPathComponent("sub/index.html"))
        try Data("top secret".utf8).write(to: base.appendingPathComponent("secret.txt"))
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("escape").path, withDestinationPath: "../secret.txt")
        // What a deployment may leave in the root: hidden, and reachable through a symlink.
        try FileManager.default.createDirectory(at: root.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try Data("top secret".utf8).write(to: root.appendingPathComponent(".git/config"))
        try Data("top secret".utf8).write(to: root.appendingPathComponent(".env"))
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("env.txt").path, withDestinationPath: ".env")
        try FileManager.default.createDirectory(at: root.appendingPathComponent(".well-known"), withIntermediateDirectories: true)
        try Data("Contact: mailto:security@example.org".utf8).write(to: root.appendingPathComponent(".well-known/security.txt"))
        return (base, root)
    }

    /// Serves a fresh `makeSite()` and hands `body` a client connected to it.
    static func withSite(_ body: (RawClient) async throws -> Void) async throws {
        let site = try makeSite()
        defer { try? FileManager.default.removeItem(at: site.base) }
        var router = TestRouter()
        router.fallback = StaticFilesResponder(StaticFiles(root: site.root.path))
        try await withServer(router) { port, _ in try await body(try RawClient(port: port)) }
    }

    @Test func servesFilesWithTypesAndValidators() async throws {
        try await Self.withSite { client in
            let css = try client.exchange("GET /app.css HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(css.status == 200)
            #expect(css.text == "body{}")
            #expect(css.headers["Content-Type"] == "text/css; charset=utf-8")
            let etag = try #require(css.headers["ETag"])
            let modified = try #require(css.headers["Last-Modified"])
            #expect(try client.exchange("GET /app.css HTTP/1.1\r\nHost: x\r\nIf-None-Match: \(etag)\r\n\r\n").status == 304)
            #expect(try client.exchange("GET /app.css HTTP/1.1\r\nHost: x\r\nIf-Modified-Since: \(modified)\r\n\r\n").status == 304)
            #expect(try client.exchange("GET /app.css HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"other\"\r\n\r\n").status == 200)
            let head = try client.exchange("HEAD /app.css HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(head.headers["Content-Length"] == "6")
            #expect(try client.exchange("GET / HTTP/1.1\r\nHost: x\r\n\r\n").text == "<h1>home</h1>")
            let redirect = try client.exchange("GET /sub HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(redirect.status == 301)
            #expect(redirect.headers["Location"] == "/sub/")
            #expect(try client.exchange("GET /sub/ HTTP/1.1\r\nHost: x\r\n\r\n").text == "<h1>sub</h1>")
            #expect(try client.exchange("GET /missing.js HTTP/1.1\r\nHost: x\r\n\r\n").status == 404)
            // Hidden names are not served, but .well-known (RFC 8615) is meant to be.
            #expect(try client.exchange("GET /.well-known/security.txt HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
        }
    }

    @Test func namesOneRouteForEveryFileItServes() async throws {
        let site = try Self.makeSite()
        defer { try? FileManager.default.removeItem(at: site.base) }
        let files = StaticFiles(root: site.root.path)
        for (method, path) in [(HTTPMethod.get, "/app.css"), (.get, "/sub/"), (.get, "/sub"), (.options, "/app.css"), (.post, "/app.css")] {
            var context = BasicRequestContext(core: CoreRequestContext(requestID: "test", logger: Logger(label: "test")))
            let response = files.respond(to: Request(method: method, path: path), context: &context)
            #expect([200, 301, 204, 405].contains(response.status))
            #expect(context.routePattern == StaticFiles.routePattern, "\(method.rawValue) \(path)")
        }
        // What it does not serve is left for the caller to count as unmatched.
        for path in ["/missing.js", "/.env", "/escape", "/%zz"] {
            var context = BasicRequestContext(core: CoreRequestContext(requestID: "test", logger: Logger(label: "test")))
            let response = files.respond(to: Request(method: .get, path: path), context: &context)
            #expect([404, 400].contains(response.status))
            #expect(context.routePattern == nil, "\(path)")
        }
    }

    @Test func redirectsStayOnThisHostAndStatusesSayWhatWentWrong() async throws {
        try await Self.withSite { client in
            // "//sub/" would be a link to the host "sub".
            #expect(try client.exchange("GET //sub HTTP/1.1\r\nHost: x\r\n\r\n").headers["Location"] == "/sub/")
            #expect(try client.exchange("GET ///sub HTTP/1.1\r\nHost: x\r\n\r\n").headers["Location"] == "/sub/")
            // Percent-encoding that does not decode is a bad request, not a missing file.
            #expect(try client.exchange("GET /%ZZ HTTP/1.1\r\nHost: x\r\n\r\n").status == 400)
            // Other methods on a file that exists: 405 with Allow; on one that does not, 404.
            let post = try client.exchange("POST /app.css HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
            #expect(post.status == 405)
            #expect(post.headers["Allow"] == "GET, HEAD, OPTIONS")
            #expect(try client.exchange("DELETE /missing.css HTTP/1.1\r\nHost: x\r\n\r\n").status == 404)
            // OPTIONS says what a file allows; a file named with a trailing slash is not there.
            let options = try client.exchange("OPTIONS /app.css HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(options.status == 204 && options.headers["Allow"] == "GET, HEAD, OPTIONS")
            #expect(try client.exchange("GET /app.css/ HTTP/1.1\r\nHost: x\r\n\r\n").status == 404)
            #expect(try client.exchange("GET /index.html/ HTTP/1.1\r\nHost: x\r\n\r\n").status == 404)
            #expect(try client.exchange("GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
            #expect(try client.exchange("OPTIONS /index.html/ HTTP/1.1\r\nHost: x\r\n\r\n").status == 404)
            #expect(try client.exchange("OPTIONS /missing.css HTTP/1.1\r\nHost: x\r\n\r\n").status == 404)
            #expect(try client.exchange("GET /sub/ HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
            // A directory too: not a redirect a browser would follow with GET.
            #expect(try client.exchange("POST /sub HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n").status == 405)
            // Nor does a 405 confirm a file outside the root.
            #expect(try client.exchange("POST /escape HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n").status == 404)
        }
    }

    @Test(arguments: ["/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E%2Fsecret.txt", "/sub/..%5c..%5csecret.txt", "/..\\secret.txt", "/escape", "/sub/../../secret.txt",
                      "/.env", "/%2eenv", "/.git/config", "/.git/", "/sub/../.env", "/env.txt"])
    func neverEscapesTheRoot(_ path: String) async throws {
        try await Self.withSite { client in
            let reply = try client.exchange("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(reply.status == 404)
            #expect(!reply.text.contains("top secret"))
        }
    }

    /// A root that does not resolve (empty, or missing) serves nothing: kept as "", it would let every
    /// absolute path pass the containment check and serve the whole filesystem.
    @Test(arguments: ["", "/nonexistent-\(UUID().uuidString)"])
    func aRootThatDoesNotResolveServesNothing(_ root: String) async throws {
        let site = try Self.makeSite()
        defer { try? FileManager.default.removeItem(at: site.base) }
        var router = TestRouter()
        router.fallback = StaticFilesResponder(StaticFiles(root: root))
        try await withServer(router) { port, _ in
            let client = try RawClient(port: port)
            for path in [site.base.path + "/secret.txt", "/etc/passwd", "/", site.root.path + "/index.html"] {
                let reply = try client.exchange("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(reply.status == 404, "\(path)")
                #expect(!reply.text.contains("top secret") && !reply.text.contains("root:"))
            }
        }
    }
}
