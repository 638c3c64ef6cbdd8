/// Anything that answers requests: a router, a middleware chain, static files, a closure.
public protocol Responder: Sendable {
    /// Produces the response for `request`; a thrown error becomes a problem response.
    func respond(to request: Request) async throws -> Response
}

/// Code that wraps a responder: it may change the request, the response, or answer by itself.
public protocol Middleware: Sendable {
    /// Handles `request`, usually by calling `next`.
    func handle(_ request: Request, next: any Responder) async throws -> Response
}

/// An error that knows its HTTP answer; the server sends `response` instead of a 500.
public protocol HTTPResponseConvertible: Error {
    /// The response to send for this error.
    var response: Response { get }
}

/// A responder made from a closure.
public struct ClosureResponder: Responder {
    private let body: @Sendable (Request) async throws -> Response

    /// Wraps `body`.
    public init(_ body: @escaping @Sendable (Request) async throws -> Response) {
        self.body = body
    }

    public func respond(to request: Request) async throws -> Response {
        try await body(request)
    }
}

/// A responder behind a list of middleware; the first in the list sees the request first.
public struct MiddlewareChain: Responder {
    private let responder: any Responder

    /// Wraps `responder` in `middleware`, outermost first.
    public init(_ middleware: [any Middleware], responder: any Responder) {
        var current = responder
        for item in middleware.reversed() {
            current = Link(middleware: item, next: current)
        }
        self.responder = current
    }

    public func respond(to request: Request) async throws -> Response {
        try await responder.respond(to: request)
    }

    private struct Link: Responder {
        let middleware: any Middleware
        let next: any Responder

        func respond(to request: Request) async throws -> Response {
            try await middleware.handle(request, next: next)
        }
    }
}
