import FormEngine
import HTTPServer

/// An RFC 9457 problem the API answers with: a ``ProblemType`` and what happened this time.
struct APIProblem: Error, HTTPResponseError {
    var type: ProblemType
    var detail: String
    var headers: [(String, String)] = []
    /// Members beyond the standard five (`errors`, `currentVersion`, …).
    var extra: ProblemExtra

    init(_ type: ProblemType, _ detail: String, headers: [(String, String)] = [], extra: ProblemExtra = ProblemExtra()) {
        self.type = type
        self.detail = detail
        self.headers = headers
        self.extra = extra
    }

    var status: Int { type.status }

    func response(context: CoreRequestContext) -> Response { response }

    var response: Response {
        let body = ProblemJSON(type: type.uri, title: type.title, status: status, detail: detail, extra: extra)
        var response = Response(status: status, body: .bytes(JSONValueEncoder.serialize(body)))
        response.headers.set("Content-Type", "application/problem+json")
        for (name, value) in headers { response.headers.add(name, value) }
        return response
    }

    /// A paging cursor this server did not hand out for the list being paged (see `CursorSeal`).
    static let invalidCursor = APIProblem(
        .invalidCursor, "'cursor' is not one this server handed out for this list; start again without it.")

    static func notFound(_ what: String) -> APIProblem {
        APIProblem(.notFound, what)
    }
    static func unsupportedMediaType(_ detail: String = "Send the body as JSON with 'Content-Type: application/json'.") -> APIProblem {
        APIProblem(.unsupportedMediaType, detail)
    }
    /// `invalidToken` when a token was sent and refused: RFC 6750 §3.1 tells the client so in
    /// `WWW-Authenticate`, apart from a request that sent none.
    static func unauthorized(_ detail: String, invalidToken: Bool = false) -> APIProblem {
        let challenge = invalidToken ? "Bearer realm=\"formhouse\", error=\"invalid_token\"" : "Bearer realm=\"formhouse\""
        return APIProblem(.unauthorized, detail,
                          headers: [("WWW-Authenticate", challenge)])
    }
    static func unavailable(_ detail: String, retryAfter: Int = 1) -> APIProblem {
        APIProblem(.unavailable, detail,
                   headers: [("Retry-After", String(retryAfter))])
    }

    /// The most field errors one answer lists; a body of thousands of unknown keys would otherwise
    /// make an answer many times its own size.
    static let maxListedErrors = 1_000

    /// Text of the listed errors at most (fields and messages): unknown keys of 1 KB each would
    /// otherwise make a 1 MB body's answer 2 MB, which a client that does not read holds in memory.
    static let maxListedErrorBytes = 256 * 1024

    /// `errors` in form order, up to ``maxListedErrors`` and ``maxListedErrorBytes`` (at least one);
    /// past that also `errorCount` (the total) and `"truncated": true`. Shared by the 422 and the
    /// `/validate` answer.
    static func listedErrors(_ errors: [FieldError]) -> ProblemExtra {
        // Counted as written (escapes included), each error's text cut to `maxErrorTextBytes`.
        var listed: [ProblemErrorJSON] = []
        var bytes = 0
        for error in errors.prefix(maxListedErrors) {
            let entry = error.capped
            bytes += JSONValueEncoder.serialize(entry).count
            if !listed.isEmpty, bytes > maxListedErrorBytes { break }
            listed.append(entry)
        }
        guard errors.count > listed.count else { return ProblemExtra(errors: listed) }
        return ProblemExtra(errors: listed, errorCount: errors.count, truncated: true)
    }

    /// 422 for a submission, with its field errors (see ``listedErrors(_:)``).
    static func validationFailed(_ errors: [FieldError]) -> APIProblem {
        APIProblem(.validationFailed, "\(errors.count) field\(errors.count == 1 ? "" : "s") did not pass validation.",
                   extra: listedErrors(errors))
    }

    /// Redelivery to an endpoint that receives nothing any more. Retrying cannot help, so the detail
    /// says what can: a new endpoint for the receiver.
    static func endpointGone(delivery: String, endpoint: String, why: String) -> APIProblem {
        APIProblem(.endpointDisabled, "Delivery '\(delivery)' goes to endpoint '\(endpoint)', which \(why); nothing is sent to it any more. "
                       + "Add the receiver again as a new endpoint; submissions from then on are delivered to it.")
    }

    /// 422 for a form definition, with every problem and its JSON Pointer into the upload.
    static func invalidDefinition(_ problems: [DefinitionProblem]) -> APIProblem {
        APIProblem(.invalidDefinition, "\(problems.count) problem\(problems.count == 1 ? "" : "s") found in the definition.",
                   extra: ProblemExtra(errors: problems.map {
                       ProblemErrorJSON(pointer: $0.pointer, code: $0.code.rawValue, message: $0.message)
                   }))
    }
}

/// A field path or message longer than this (an unknown key of a megabyte) is cut, with "…".
let maxErrorTextBytes = 1024

extension FieldError {
    /// `{"field", "code", "message"}`, with `field` and `message` cut to ``maxErrorTextBytes`` at a
    /// character boundary.
    var capped: ProblemErrorJSON {
        ProblemErrorJSON(field: Self.cut(field), code: code.rawValue, message: Self.cut(message))
    }

    private static func cut(_ text: String) -> String {
        guard text.utf8.count > maxErrorTextBytes else { return text }
        var kept = ""
        var bytes = 0
        for character in text {
            bytes += character.utf8.count
            if bytes > maxErrorTextBytes - 3 { break }
            kept.append(character)
        }
        return kept + "…"
    }
}
