import FormEngine
import HTTPServer

/// The routes mobile and web clients call without a token (CONTRACT §2).
struct PublicRoutes {
    let catalog: FormCatalog
    let submissions: SubmissionService
    let rateLimiter: RateLimiter

    func register(on router: inout Router) {
        router.handle(.get, "/v1/forms/{id}") { try await getForm($0) }
        router.handle(.head, "/v1/forms/{id}") { try await getForm($0) }
        router.handle(.post, "/v1/forms/{id}/submissions") { try await submit($0) }
        router.handle(.post, "/v1/forms/{id}/validate") { try await validate($0) }
    }

    func getForm(_ request: Request) async throws -> Response {
        let id = try request.formID()
        guard let form = try await catalog.current(id: id) else {
            throw APIProblem.notFound("There is no form '\(id)'.")
        }
        let profile = request.query["profile"]
        if let profile, profile != "formworks" {
            throw APIProblem.badRequest("unknown-profile", "Unknown profile '\(profile)'; the only profile is 'formworks'.")
        }
        let etag = profile == nil ? form.etag : "\"\(form.version)-formworks\""
        var headers = HTTPHeaders()
        headers.set("ETag", etag)
        headers.set("Cache-Control", "no-cache")
        if let match = request.headers["If-None-Match"], ETagList.matches(match, etag) {
            return Response(status: 304, headers: headers)
        }
        var response = Response.json(profile == nil ? form.body : form.formworksBody)
        for (name, value) in headers { response.headers.set(name, value) }
        return response
    }

    func submit(_ request: Request) async throws -> Response {
        try request.requireJSON()
        try rateLimiter.admit(request.remoteAddress)
        let outcome = try await submissions.submit(.init(
            formID: try request.formID(), body: request.body,
            idempotencyKey: request.headers["Idempotency-Key"], clientAddress: request.remoteAddress))
        switch outcome {
        case .accepted(let body):
            return .json(body, status: 201)
        case .replayed(let body):
            var response = Response.json(body, status: 201)
            response.headers.set("Idempotent-Replayed", "true")
            return response
        }
    }

    func validate(_ request: Request) async throws -> Response {
        try request.requireJSON()
        let result = try await submissions.validate(formID: try request.formID(), body: request.body)
        let body = JSONValue.members([("valid", .bool(result.isValid)), ("errors", .array(result.errors.map(\.json)))])
        return .json(body.serialized())
    }
}

/// `If-None-Match` lists, including `*` and weak validators (RFC 9110 §13.1.2 weak comparison).
enum ETagList {
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { item in
            var tag = item.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }
}

extension Request {
    /// The `{id}` path parameter, checked against the id syntax forms may have.
    func formID(_ name: String = "id") throws -> String {
        guard let id = parameters[name], FormIdentifier.isValid(id) else {
            throw APIProblem.notFound("There is no form '\(parameters[name] ?? "")'.")
        }
        return id
    }

    /// Submissions and definitions are JSON; anything else is 415 before the body is looked at.
    func requireJSON() throws {
        guard let type = headers["Content-Type"]?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased(),
            type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
        else { throw APIProblem.unsupportedMediaType() }
    }
}

/// Form ids appear in URLs and file names: 1–64 of letters, digits, `-` and `_`, starting alphanumeric.
enum FormIdentifier {
    static func isValid(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard (1...64).contains(bytes.count), isAlphanumeric(bytes[0]) else { return false }
        return bytes.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    private static func isAlphanumeric(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
    }
}
