/// Routes requests by method and path pattern (`/v1/forms/{id}/submissions`) to handlers.
///
/// Routes are added at start-up; lookup walks a segment tree, one node per path segment, comparing the
/// segment with the few literals of its node, so routes elsewhere in the tree cost nothing. Unmatched
/// paths go to `fallback` or get a 404 problem; a known path with another method gets 405 with `Allow`.
public struct Router: Responder {
    /// A route handler.
    public typealias Handler = @Sendable (Request) async throws -> Response

    private struct Route: Sendable {
        var handler: Handler
        var parameterNames: [String]
        var pattern: String
    }

    private struct Node: Sendable {
        /// Literal child segments, compared as bytes: a node has a handful, and scanning them costs
        /// less than making a `String` of the segment and hashing it on every request.
        var literals: [(segment: [UInt8], node: Int)] = []

        func literal(_ segment: Substring) -> Int? {
            for (bytes, node) in literals where bytes.elementsEqual(segment.utf8) { return node }
            return nil
        }
        var parameter: Int?
        /// By method; a few at most, scanned rather than hashed for the same reason as `literals`.
        var routes: [(method: HTTPMethod, route: Route)] = []

        func route(_ method: HTTPMethod) -> Route? {
            for entry in routes where entry.method == method { return entry.route }
            return nil
        }
    }

    private var nodes = [Node()]
    private var table: [(HTTPMethod, String)] = []

    /// Answers requests no route matches (e.g. `StaticFiles`); nil means 404.
    public var fallback: (any Responder)?

    /// An empty router.
    public init() {}

    /// Every registered `(method, pattern)`, in registration order.
    public var routes: [(HTTPMethod, String)] { table }

    /// Registers `handler` for `method` on `pattern`; `{name}` segments capture a parameter.
    /// Registering the same method and pattern twice replaces the first handler.
    public mutating func on(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping Handler) {
        precondition(pattern.hasPrefix("/"), "route patterns start with /: \(pattern)")
        var node = 0
        var names: [String] = []
        for segment in pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            if segment.hasPrefix("{"), segment.hasSuffix("}"), segment.count > 2 {
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
        let route = Route(handler: handler, parameterNames: names, pattern: pattern)
        if let index = nodes[node].routes.firstIndex(where: { $0.method == method }) {
            nodes[node].routes[index].route = route
        } else {
            table.append((method, pattern))
            nodes[node].routes.append((method, route))
        }
    }

    public func respond(to request: Request) async throws -> Response {
        var captures: [Substring] = []
        let path = request.path
        if path == "*", request.method == .options {
            // The server as a whole (RFC 9110 §9.3.7): every method some route takes.
            var allowed = Set(nodes.flatMap { $0.routes.map(\.method.rawValue) })
            if allowed.contains("GET") { allowed.insert("HEAD") }
            allowed.insert("OPTIONS")
            var response = Response(status: 204, headers: ["Allow": allowed.sorted().joined(separator: ", ")])
            response.routePattern = "*"
            return response
        }
        guard path.utf8.first == UInt8(ascii: "/"),
              let node = match(path[path.utf8.index(after: path.startIndex)...], from: 0, captures: &captures) else {
            if let fallback {
                return try await fallback.respond(to: request)
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
            response.routePattern = routes.first?.route.pattern
            return response
        }
        var request = request
        if !captures.isEmpty {
            var parameters: [(name: String, value: String)] = []
            parameters.reserveCapacity(captures.count)
            for (name, raw) in zip(route.parameterNames, captures) {
                guard let value = PercentDecoding.decode(raw) else {
                    var response = Response.standardProblem(status: 400, detail: "Malformed percent-encoding in the path.")
                    response.routePattern = route.pattern
                    return response
                }
                parameters.append((name, value))
            }
            request.parameters = Parameters(labelled: parameters)
        }
        // A thrown answer becomes a response here, so hooks and middleware outside the router (metrics,
        // logs) see it under its route; anything else travels on with the route attached.
        var response: Response
        do {
            response = try await route.handler(request)
        } catch let error as any HTTPResponseConvertible {
            response = error.response
        } catch {
            throw RoutedError(pattern: route.pattern, underlying: error)
        }
        response.routePattern = route.pattern
        return response
    }

    /// Depth-first match of the path after its leading slash, preferring literal segments and
    /// backtracking into parameters when a literal branch fails. Walks the path in place.
    private func match(_ rest: Substring, from node: Int, captures: inout [Substring]) -> Int? {
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

    private func descend(_ remainder: Substring?, into node: Int, captures: inout [Substring]) -> Int? {
        guard let remainder else {
            return nodes[node].routes.isEmpty ? nil : node
        }
        return match(remainder, from: node, captures: &captures)
    }
}

/// A handler's error that has no HTTP answer of its own, with the route that threw it (for the log).
public struct RoutedError: Error {
    /// The pattern of the route whose handler threw.
    public var pattern: String
    /// What the handler threw.
    public var underlying: any Error
}
