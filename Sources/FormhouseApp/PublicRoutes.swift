import FormEngine
import HTTPServer

/// The routes mobile and web clients call without a token (docs/api.md, "Public routes").
struct PublicRoutes {
    let catalog: FormCatalog
    let submissions: SubmissionService
    let rateLimiter: RateLimiter
    /// `/validate`'s own, more generous bucket: the web renderer calls it as a person types.
    let validateRateLimiter: RateLimiter

    func register(on router: inout Router<AppContext>) {
        router.on(.get, "/v1/forms/{id}") { request, _ in try await getForm(request) }
        router.on(.head, "/v1/forms/{id}") { request, _ in try await getForm(request) }
        router.on(.post, "/v1/forms/{id}/submissions") { request, _ in try await submit(request) }
        router.on(.post, "/v1/forms/{id}/validate") { request, _ in try await validate(request) }
    }

    /// The current version, or `?version=n` (clients that cached a version, the web renderer).
    /// A deleted form answers 404 for every version.
    func getForm(_ request: Request) async throws -> Response {
        let id = try request.formID()
        guard let current = try await catalog.current(id: id) else {
            throw APIProblem.notFound("There is no form '\(id)'.")
        }
        var form = current
        if let raw = try request.queryValue("version") {
            guard let version = Int(raw), version > 0 else {
                throw APIProblem(.invalidParameter, "'version' must be a positive whole number.")
            }
            if version != current.version {
                // Compiling an old version costs like a submission: it draws on the same rate limit.
                guard let old = try await catalog.oldVersion(id: id, version: version, charge: { try rateLimiter.admit(request.remoteAddress) }) else {
                    throw APIProblem.notFound("Form '\(id)' has no version \(version); the current version is \(current.version).")
                }
                form = old
            }
        }
        let profile = try FormProfile(query: request.queryValue("profile"))
        // A form without text maps has one answer: the request's languages need no reading (this is
        // the hot path), only `?lang=` a check. `?lang=*` asks for the maps themselves.
        let parameter = try request.languageParameter()
        var language: String?
        if form.definition.isTranslated {
            // Only `?lang=*` asks for the maps; `Accept-Language: *` is any language, so the default.
            language = parameter == "*" ? nil : form.definition.language(for: request.languagePreferences(parameter: parameter))
        }
        guard let answer = try await form.answer(profile, language: language) else {
            if case .requiredFileInput(let path) = form.definition.formworksProfileRefusal {
                throw APIProblem(.profileNeedsFiles, "Form '\(id)' requires a file in '\(path)', and Formworks has no file component; fetch it without ?profile=formworks.")
            }
            throw APIProblem(.profileTooLarge, "Form '\(id)' version \(form.version) repeats more than the formworks profile may hold; fetch it without ?profile=formworks.")
        }
        var headers = answer.headers
        // Every If-None-Match line: repeated lines are one list (RFC 9110 §5.3).
        if let match = request.headers.list("If-None-Match"), let etag = headers["ETag"], ETagList.matches(match, etag) {
            headers.remove("Content-Type")
            return Response(status: 304, headers: headers)
        }
        return Response(status: 200, headers: headers, body: .bytes(answer.body))
    }

    func submit(_ request: Request) async throws -> Response {
        try request.requireJSON()
        try rateLimiter.admit(request.remoteAddress, cost: RateLimiter.cost(ofBody: request.body.count))
        let key = request.headers["Idempotency-Key"]
        // Which of two keys counts is anyone's guess; neither is taken.
        if key != nil, request.headers.values("Idempotency-Key").count > 1 {
            throw SubmissionFailure.invalidIdempotencyKey(reason: "Send one Idempotency-Key header, not several.")
        }
        return try await submissions.submit(.init(
            formID: try request.formID(), body: request.body,
            idempotencyKey: key, clientAddress: request.remoteAddress, languages: request.languagePreferences())).response
    }

    func validate(_ request: Request) async throws -> Response {
        try request.requireJSON()
        try validateRateLimiter.admit(request.remoteAddress, cost: RateLimiter.cost(ofBody: request.body.count))
        let result = try await submissions.validate(formID: try request.formID(), body: request.body, clientAddress: request.remoteAddress,
                                                    languages: request.languagePreferences())
        // A person typing calls this at every pause, and most answers are "valid": that answer is
        // the same bytes every time, so it is not encoded again (the encoder cost 8 % of throughput);
        // a form with computed inputs answers their values too.
        var response = !result.isValid || !result.computed.isEmpty
            ? Response.json(encoding: ValidationJSON(valid: result.isValid, computed: result.computed, listed: APIProblem.listedErrors(result.errors)))
            : Response.json(ValidationJSON.valid)
        MessageLanguage.add(result.messageLanguages, to: &response)
        return response
    }
}

extension SubmissionService.Outcome {
    /// The 201: a replay says so in `Idempotent-Replayed`.
    var response: Response {
        switch self {
        case .accepted(let body):
            return .json(body, status: 201)
        case .replayed(let body):
            var response = Response.json(body, status: 201)
            response.headers.set("Idempotent-Replayed", "true")
            return response
        }
    }
}

/// How a form is served: as defined, or reduced to the five Formworks types (`?profile=formworks`).
enum FormProfile {
    case full
    case formworks

    /// The profile a `profile` query parameter names; nil (absent) is the full form.
    init(query: String?) throws {
        switch query {
        case nil: self = .full
        case "formworks": self = .formworks
        case let other?: throw APIProblem(.unknownProfile, "Unknown profile '\(other)'; the only profile is 'formworks'.")
        }
    }
}

/// Entity-tag lists, including `*` and weak validators (RFC 9110 §8.8.3.2): weak comparison for
/// `If-None-Match`, strong (a weak tag never matches) for `If-Match`.
enum ETagList {
    static func matches(_ header: String, _ etag: String, weak: Bool = true) -> Bool {
        header.split(separator: ",").contains { item in
            var tag = item.trimmingASCIISpace()
            if tag == "*" { return true }
            if tag.hasPrefix("W/") {
                guard weak else { return false }
                tag = tag.dropFirst(2)
            }
            return tag == etag
        }
    }
}

extension Request {
    /// The `{id}` path parameter, checked against the id syntax forms may have.
    func formID(_ name: String = "id") throws -> String {
        let id = try parameters.require(name)
        guard FormIdentifier.isValid(id) else { throw APIProblem.notFound("There is no form '\(id)'.") }
        return id
    }

    /// Submissions and definitions are JSON in UTF-8, not content-coded; anything else is 415 before
    /// the body is looked at (RFC 9110 §8.4: a coding the server does not decode is 415, not a parse
    /// error, and a body sent with one must not be taken as it is).
    func requireJSON() throws {
        guard let type = headers["Content-Type"], MediaType.isJSON(type) else { throw APIProblem.unsupportedMediaType() }
        if let charset = MediaType.charset(type), !["utf-8", "utf8", "us-ascii"].contains(charset.lowercased()) {
            throw APIProblem.unsupportedMediaType("JSON is read as UTF-8; 'charset=\(charset.prefix(64))' is not.")
        }
        // Every Content-Encoding line: a second one may hold the coding the first does not.
        if let coding = headers.list("Content-Encoding"), coding.lowercased().split(separator: ",").contains(where: {
            $0.trimmingCharacters(in: .whitespaces) != "identity"
        }) {
            var refused = APIProblem.unsupportedMediaType(
                "Bodies are read as sent: send them without 'Content-Encoding' (got '\(coding.prefix(64))').")
            refused.headers.append(("Accept-Encoding", "identity"))
            throw refused
        }
    }
}

/// Media type checks, done in place on the header's bytes: this runs on every submission.
enum MediaType {
    /// `application/json` or `application/<anything>+json`, any case, parameters after `;` ignored.
    static func isJSON(_ header: String) -> Bool {
        let end = header.utf8.firstIndex(of: UInt8(ascii: ";")) ?? header.endIndex
        var type = header[..<end].trimmingASCIISpace()
        return type.withUTF8 { type in
            guard type.count > 12, matches(type, at: 0, "application/") else { return false }
            return (type.count == 16 && matches(type, at: 12, "json"))
                || (type.count > 17 && matches(type, at: type.count - 5, "+json"))
        }
    }

    /// The `charset` parameter of a media type, unquoted; nil when there is none. Only called on
    /// headers with parameters, which clients rarely send.
    static func charset(_ header: String) -> String? {
        guard header.utf8.contains(UInt8(ascii: ";")) else { return nil }
        for parameter in header.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else { continue }
            var value = parts[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }

    /// Whether `bytes` hold the lowercase ASCII `literal` at `offset`, ignoring the case of letters.
    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, _ literal: StaticString) -> Bool {
        literal.withUTF8Buffer { expected in
            guard offset + expected.count <= bytes.count else { return false }
            for index in 0..<expected.count {
                let byte = bytes[offset + index]
                if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != expected[index] { return false }
            }
            return true
        }
    }
}

/// The ids forms may have (1–64 letters, digits, `-` and `_`, starting alphanumeric): they appear in
/// URL paths, file names and metric labels.
public enum FormIdentifier {
    /// What a definition with a bad `id` is told, at `/id`.
    public static let problem = DefinitionProblem(
        pointer: "/id", code: .invalidFormId,
        message: "A form id is 1–64 letters, digits, '-' or '_', starting with a letter or digit.")

    /// The id problem of a definition that did not compile, read from its JSON, so that it is listed
    /// with the others rather than only once they are fixed. Nil when the id is valid, absent or
    /// unreadable (a malformed body has its own problem).
    public static func problem(inDefinition bytes: [UInt8]) -> DefinitionProblem? {
        guard let id = bodyID(of: bytes), !isValid(id) else { return nil }
        return problem
    }

    /// The `id` a definition's body gives, when it parses as JSON at all and the id is a string.
    static func bodyID(of bytes: [UInt8]) -> String? {
        guard let value = try? JSONValue(parsing: bytes), case .string(let id)? = value["id"] else { return nil }
        return id
    }

    public static func isValid(_ id: String) -> Bool {
        let bytes = id.utf8
        guard (1...64).contains(bytes.count), let first = bytes.first, isAlphanumeric(first) else { return false }
        return bytes.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    private static func isAlphanumeric(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
    }
}
