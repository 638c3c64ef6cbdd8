/// The headers every answer carries, set once in the server's configuration rather than per request.
enum SecurityHeaders {
    static let everyResponse = [("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer")]
    static let contentSecurityPolicy = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
}
