/// Routes requests by method and path pattern (`/v1/forms/{id}/submissions`) to handlers.
///
/// Routes are added at start-up; lookup walks a segment tree, one node per path segment, comparing the
/// segment with the few literals of its node, so routes elsewhere in the tree cost nothing. Unmatched
/// paths go to `fallback` or get a 404 problem; a known path with another method gets 405 with `Allow`.
///
/// Middleware belongs to a path prefix (``group(_:middleware:_:)``): every route under the prefix runs
/// behind it, whichever way it was registered, so a route cannot be added under `/v1/admin` without
/// the admin middleware.
///
/// The router is generic over the application's context and `@inlinable`, so that the application's
/// module compiles a copy specialised to its context type: unspecialised generic code would copy
/// each context through value witnesses on every request.
public struct Router<Context: RequestContext>: Responder {
    /// A route handler.
    public typealias Handler = @Sendable (Request, Context) async throws -> Response

    @usableFromInline
    struct Route: Sendable {
        @usableFromInline var handler: Handler
        @usableFromInline var parameterNames: [String]
        @usableFromInline var pattern: String
        @usableFromInline var bodyMode: BodyMode
    }

    @usableFromInline
    struct Node: Sendable {
        /// Literal child segments, compared as bytes: a node has a handful, and scanning them costs
        /// less than making a `String` of the segment and hashing it on every request.
        @usableFromInline var literals: [(segment: [UInt8], node: Int)] = []

        @inlinable
        func literal(_ segment: Substring) -> Int? {
            for (bytes, node) in literals where bytes.elementsEqual(segment.utf8) { return node }
            return nil
        }
        @usableFromInline var parameter: Int?
        /// By method; a few at most, scanned rather than hashed for the same reason as `literals`.
        @usableFromInline var routes: [(method: HTTPMethod, route: Route)] = []

        @inlinable
        func route(_ method: HTTPMethod) -> Route? {
            for entry in routes where entry.method == method { return entry.route }
            return nil
        }
    }

    @usableFromInline var nodes = [Node()]
    private var table: [(HTTPMethod, String)] = []
    /// Middleware by path prefix (as segments), outermost first.
    private var middleware: [(prefix: [Substring], middleware: any RouterMiddleware<Context>)] = []

    /// Answers requests no route matches (static files, say); nil means 404.
    public var fallback: (any Responder<Context>)?

    /// An empty router.
    public init() {}

    /// Every registered `(method, pattern)`, in registration order.
    public var routes: [(HTTPMethod, String)] { table }

    /// Registers `handler` for `method` on `pattern`; `{name}` segments capture a parameter. The
    /// handler runs behind the middleware of every group whose prefix the pattern is under.
    /// Registering the same method and pattern twice replaces the first handler. `body` says whether
    /// the handler gets the body whole or as it arrives.
    public mutating func on(_ method: HTTPMethod, _ pattern: String, body: BodyMode = .buffered, _ handler: @escaping Handler) {
        precondition(pattern.hasPrefix("/"), "route patterns start with /: \(pattern)")
        var node = 0
        var names: [String] = []
        let segments = Self.segments(of: pattern)
        for entry in middleware {
            precondition(!Self.reaches(Array(segments), under: entry.prefix) || segments.starts(with: entry.prefix),
                         "\(pattern) would answer paths under a group's prefix without its middleware")
        }
        for segment in segments {
            if Self.isParameter(segment) {
                names.append(String(segment.dropFirst().dropLast()))
                if let next = nodes[node].parameter {
                    node = next
                } else {
                    nodes.append(Node())
                    nodes[node].parameter = nodes.count - 1
                    node = nodes.count - 1
                }
            } else if let next = nodes[node].literal(segment) {
                node = next
            } else {
                nodes.append(Node())
                nodes[node].literals.append((Array(segment.utf8), nodes.count - 1))
                node = nodes.count - 1
            }
        }
        var wrapped = handler
        for entry in middleware.reversed() where segments.starts(with: entry.prefix) {
            let next = wrapped
            let layer = entry.middleware
            wrapped = { request, context in try await layer.handle(request, context: context, next: next) }
        }
        let route = Route(handler: wrapped, parameterNames: names, pattern: pattern, bodyMode: body)
        if let index = nodes[node].routes.firstIndex(where: { $0.method == method }) {
            nodes[node].routes[index].route = route
        } else {
            table.append((method, pattern))
            nodes[node].routes.append((method, route))
        }
    }

    /// Puts `middleware` in front of every route under `prefix` (a literal path like `/v1/admin`),
    /// then lets `build` register routes relative to it. The prefix must not have routes yet: they
    /// would run without the middleware.
    public mutating func group(
        _ prefix: String, middleware: any RouterMiddleware<Context>, _ build: (inout RouterGroup<Context>) -> Void
    ) {
        precondition(prefix.hasPrefix("/") && !prefix.hasSuffix("/") && !prefix.contains("{"),
                     "a group prefix is a literal path without a trailing slash: \(prefix)")
        let segments = Self.segments(of: prefix)
        precondition(!table.contains { Self.reaches(Self.segments(of: $0.1), under: segments) },
                     "routes that answer paths under \(prefix) were registered before its middleware")
        self.middleware.append((Array(segments), middleware))
        var group = RouterGroup(prefix: prefix, router: self)
        build(&group)
        self = group.router
    }

    /// Whether a route with these pattern segments can answer a path under `prefix`: each of its
    /// first segments is the prefix's literal or a parameter. Matching backtracks from a literal
    /// into a parameter, so `/v1/{x}/forms` answers `/v1/admin/forms` when no admin route does.
    private static func reaches(_ pattern: [Substring], under prefix: [Substring]) -> Bool {
        guard pattern.count >= prefix.count else { return false }
        return zip(pattern, prefix).allSatisfy { segment, literal in
            segment == literal || isParameter(segment)
        }
    }

    /// The segments of a pattern or prefix after its leading slash.
    private static func segments(of pattern: String) -> [Substring] {
        Array(pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
    }

    /// Whether a pattern segment captures a parameter (`{name}`).
    private static func isParameter(_ segment: Substring) -> Bool {
        segment.hasPrefix("{") && segment.hasSuffix("}") && segment.count > 2
    }

    @inlinable
    public func respond(to request: Request, context: inout Context) async throws -> Response {
        var captures: [Substring] = []
        let path = request.path
        if path == "*", request.method == .options {
            // The server as a whole (RFC 9110 §9.3.7): every method some route takes.
            var allowed = Set(nodes.flatMap { $0.routes.map(\.method.rawValue) })
            if allowed.contains("GET") { allowed.insert("HEAD") }
            allowed.insert("OPTIONS")
            context.core.routePattern = "*"
            return Response(status: 204, headers: ["Allow": allowed.sorted().joined(separator: ", ")])
        }
        guard path.utf8.first == UInt8(ascii: "/"),
              let node = match(path[path.utf8.index(after: path.startIndex)...], from: 0, captures: &captures) else {
            if let fallback {
                return try await fallback.respond(to: request, context: &context)
            }
            return .standardProblem(status: 404, detail: "No resource at \(request.path).")
        }
        guard let route = nodes[node].route(request.method) ?? (request.method == .head ? nodes[node].route(.get) : nil) else {
            let routes = nodes[node].routes
            var allowed = Set(routes.map(\.method.rawValue))
            if allowed.contains("GET") { allowed.insert("HEAD") }
            // OPTIONS is answered for every route (the 204 below), so it is allowed everywhere.
            allowed.insert("OPTIONS")
            let allow = allowed.sorted().joined(separator: ", ")
            var response = request.method == .options
                ? Response(status: 204)
                : Response.standardProblem(status: 405, detail: "\(request.method.rawValue) is not allowed here.")
            response.headers.set("Allow", allow)
            // Counted and logged under the path's route, as its other answers are.
            context.core.routePattern = routes.first?.route.pattern
            return response
        }
        context.core.routePattern = route.pattern
        var request = request
        // A bodiless request (its mode is not asked, to keep GETs cheap) or one built by hand.
        if case .streamed = route.bodyMode, request.bodyStream == nil {
            request.bodyStream = RequestBody(bytes: request.body)
            request.body = []
        }
        if !captures.isEmpty {
            var parameters: [(name: String, value: String)] = []
            parameters.reserveCapacity(captures.count)
            for (name, raw) in zip(route.parameterNames, captures) {
                guard let value = PercentDecoding.decode(raw) else {
                    return .standardProblem(status: 400, detail: "Malformed percent-encoding in the path.")
                }
                parameters.append((name, value))
            }
            request.parameters = Parameters(labelled: parameters)
        }
        return try await route.handler(request, context)
    }

    /// The body mode of the route that answers `method` on `path`; buffered where no route does
    /// (the answer is a 404 or 405 whatever the body).
    public func bodyMode(method: HTTPMethod, path: String) -> BodyMode {
        var captures: [Substring] = []
        guard path.utf8.first == UInt8(ascii: "/"),
              let node = match(path[path.utf8.index(after: path.startIndex)...], from: 0, captures: &captures),
              let route = nodes[node].route(method) else { return .buffered }
        return route.bodyMode
    }

    /// Depth-first match of the path after its leading slash, preferring literal segments and
    /// backtracking into parameters when a literal branch fails. Walks the path in place.
    @inlinable
    func match(_ rest: Substring, from node: Int, captures: inout [Substring]) -> Int? {
        let end = rest.utf8.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
        let segment = rest[rest.startIndex..<end]
        let remainder: Substring? = end == rest.endIndex ? nil : rest[rest.utf8.index(after: end)...]
        if let next = nodes[node].literal(segment), let found = descend(remainder, into: next, captures: &captures) {
            return found
        }
        if let next = nodes[node].parameter, !segment.isEmpty {
            captures.append(segment)
            if let found = descend(remainder, into: next, captures: &captures) {
                return found
            }
            captures.removeLast()
        }
        return nil
    }

    @inlinable
    func descend(_ remainder: Substring?, into node: Int, captures: inout [Substring]) -> Int? {
        guard let remainder else {
            return nodes[node].routes.isEmpty ? nil : node
        }
        return match(remainder, from: node, captures: &captures)
    }
}
