import HTTPServer

/// Drafts, for clients without an admin token: created per form, then opened with the draft's own
/// token (docs/api.md, "Drafts").
struct DraftRoutes {
    let drafts: DraftService
    /// Creating and submitting draw on the submissions' bucket.
    let rateLimiter: RateLimiter
    /// Reading and patching draw on `/validate`'s, more generous one: a renderer saves as a person types.
    let saveRateLimiter: RateLimiter

    func register(on router: inout Router<AppContext>) {
        router.on(.post, "/v1/forms/{id}/drafts") { request, _ in
            if !request.body.isEmpty { try request.requireJSON() }
            try rateLimiter.admit(request.remoteAddress, cost: RateLimiter.cost(ofBody: request.body.count))
            let draft = try await drafts.create(
                formID: try request.formID(), body: request.body, clientAddress: request.remoteAddress, languages: request.languagePreferences())
            var response = answer(draft, status: 201)
            response.headers.set("Location", "/v1/drafts/\(draft.record.id)")
            return response
        }
        router.on(.get, "/v1/drafts/{did}") { request, _ in
            try saveRateLimiter.admit(request.remoteAddress)
            return answer(try await drafts.read(
                id: try request.parameters.require("did"), token: request.draftToken, clientAddress: request.remoteAddress,
                languages: request.languagePreferences()))
        }
        router.on(.patch, "/v1/drafts/{did}") { request, _ in
            try request.requireMergePatch()
            try saveRateLimiter.admit(request.remoteAddress, cost: RateLimiter.cost(ofBody: request.body.count))
            let draft = try await drafts.patch(
                id: try request.parameters.require("did"), token: request.draftToken, patch: request.body,
                ifMatch: { try request.expectedRevision() }, clientAddress: request.remoteAddress,
                languages: request.languagePreferences())
            return answer(draft)
        }
        router.on(.delete, "/v1/drafts/{did}") { request, _ in
            try saveRateLimiter.admit(request.remoteAddress)
            try await drafts.delete(id: try request.parameters.require("did"), token: request.draftToken)
            return Response(status: 204)
        }
        router.on(.post, "/v1/drafts/{did}/submit") { request, _ in
            try rateLimiter.admit(request.remoteAddress)
            return try await drafts.submit(
                id: try request.parameters.require("did"), token: request.draftToken, clientAddress: request.remoteAddress,
                languages: request.languagePreferences()).response
        }
    }

    /// The draft, its revision as the ETag; never cached, as it holds a person's answers. The ETag
    /// names the values (what `If-Match` guards), whatever language the errors are written in.
    private func answer(_ draft: DraftService.Draft, status: Int = 200) -> Response {
        var response = Response.json(encoding: DraftJSON(draft), status: status)
        response.headers.set("ETag", "\"\(draft.record.revision)\"")
        response.headers.set("Cache-Control", "no-store")
        MessageLanguage.add(draft.languages, to: &response)
        return response
    }
}

extension Request {
    /// The bearer token a draft call carries; nil when there is none (a 404, as a wrong one).
    var draftToken: String? { bearerToken.map(String.init) }

    /// The revision `If-Match` names: nil without the field or with `*` (any revision). A weak or
    /// unreadable tag matches no revision (RFC 9110 §13.1.1 compares strongly), so it gets 412.
    func expectedRevision() throws -> Int? {
        guard let field = headers.list("If-Match")?.trimmingCharacters(in: .whitespaces), field != "*" else { return nil }
        guard field.count >= 3, field.hasPrefix("\""), field.hasSuffix("\""),
              let revision = Int(field.dropFirst().dropLast()), revision > 0 else {
            throw APIProblem(.preconditionFailed, "If-Match must name one revision, as the draft's ETag gives it: If-Match: \"3\".")
        }
        return revision
    }

    /// A draft is changed by a JSON merge patch (RFC 7396), in UTF-8 and not content-coded.
    func requireMergePatch() throws {
        // Up to the first `;`, which an empty or parameter-only field may not have.
        guard let type = headers["Content-Type"],
              type.prefix(while: { $0 != ";" }).trimmingCharacters(in: .whitespaces).lowercased() == "application/merge-patch+json" else {
            throw APIProblem(.unsupportedMediaType, "Send a JSON merge patch with 'Content-Type: application/merge-patch+json'.",
                             headers: [("Accept-Patch", "application/merge-patch+json")])
        }
        try requireJSON()
    }
}
