import FormEngine
import FormStore
import Foundation
import HTTPServer
import Logging
import Webhooks

/// Admin routes for webhook endpoints and their deliveries (docs/api.md, "Webhooks and deliveries";
/// the request they send is in docs/webhooks.md).
struct WebhookRoutes {
    /// Refused URLs, with what the answer leaves out.
    private static let logger = Logger(label: "formhouse.webhooks")
    static let rotationOverlap: TimeInterval = 24 * 3600
    static let maxURLLength = 2_048
    static let maxEndpointsPerForm = 20

    let store: any FormStore
    let catalog: FormCatalog
    let secrets: SecretBox
    let policy: AddressPolicy
    let cursors: CursorSeal
    let notify: @Sendable () -> Void

    /// Registers the routes in the `/v1/admin` group, whose middleware checks the token.
    func register(on admin: inout AdminRoutes) {
        admin.on(.post, "/forms/{id}/webhooks", needs: .init(.edit, .form("id"))) { request, caller in try await create(request, caller: caller) }
        admin.on(.get, "/forms/{id}/webhooks", needs: .init(.edit, .form("id"))) { request, _ in try await list(request) }
        admin.on(.delete, "/webhooks/{wid}", needs: .init(.edit, .webhook("wid"))) { request, caller in try await delete(request, caller: caller) }
        admin.on(.post, "/webhooks/{wid}/rotate", needs: .init(.edit, .webhook("wid"))) { request, caller in try await rotate(request, caller: caller) }
        admin.on(.get, "/deliveries", needs: .init(.read)) { request, caller in try await deliveries(request, caller: caller) }
        admin.on(.get, "/deliveries/{did}", needs: .init(.read, .delivery("did"))) { request, caller in try await delivery(request, caller: caller) }
        admin.on(.post, "/deliveries/{did}/redeliver", needs: .init(.edit, .delivery("did"))) { request, caller in try await redeliver(request, caller: caller) }
    }

    func create(_ request: Request, caller: AdminCaller) async throws -> Response {
        try request.requireJSON()
        let formID = try request.formID()
        guard try await catalog.current(id: formID) != nil else {
            throw APIProblem.notFound("There is no form '\(formID)'.")
        }
        guard let body = try? JSONValue(parsing: request.body), case .string(let url)? = body["url"] else {
            throw APIProblem(.invalidBody, #"Send {"url": "https://…"}."#)
        }
        guard url.utf8.count <= Self.maxURLLength else {
            throw APIProblem(.invalidBody, "The URL is longer than \(Self.maxURLLength) bytes.")
        }
        // Checked here to spare the DNS lookup, and again in the insert's transaction, which is what
        // holds against concurrent creations.
        guard try await store.endpoints(formID: formID).count < Self.maxEndpointsPerForm else { throw Self.tooManyWebhooks }
        do {
            // Resolving the host blocks; keep it off the event loop that serves other requests.
            let policy = self.policy
            try await Offload.blocking { _ = try policy.validate(url: url) }
        } catch {
            if let logged = (error as? WebhookError)?.logDetail {
                Self.logger.info("a webhook URL was refused", metadata: ["form": "\(formID)", "why": "\(logged)"])
            }
            throw APIProblem(.invalidWebhookURL, String(describing: error),
                             extra: ProblemExtra(errors: [ProblemErrorJSON(pointer: "/url", code: "url", message: String(describing: error))]))
        }
        let secret = WebhookSecret.generate()
        let id = RandomID.make(prefix: "ep_")
        let record: EndpointRecord
        do {
            record = try await store.createEndpoint(NewEndpoint(
                id: id, formID: formID, url: url,
                secretCiphertext: Array(try secrets.seal(secret, context: id).utf8), createdAt: Date(),
                maxPerForm: Self.maxEndpointsPerForm),
                // The host only: a webhook URL's path or query often is a secret of its own.
                audit: caller.audit("webhook.created", target: id, detail: [
                    "formId": .string(formID), "host": URLComponents(string: url)?.host.map(JSONValue.string) ?? .null,
                ]))
        } catch StoreError.limitReached {
            throw Self.tooManyWebhooks
        }
        var response = Response.json(encoding: EndpointJSON(record, secret: secret.encoded), status: 201)
        response.headers.set("Location", "/v1/admin/forms/\(formID)/webhooks")
        return response
    }

    private static let tooManyWebhooks = APIProblem(.tooManyWebhooks, "A form has at most \(maxEndpointsPerForm) webhook endpoints; remove one first.")

    func list(_ request: Request) async throws -> Response {
        let formID = try request.formID()
        guard try await store.formExists(id: formID, includingDeleted: true) else {
            throw APIProblem.notFound("There is no form '\(formID)'.")
        }
        return .json(encoding: EndpointListJSON(items: try await store.endpoints(formID: formID).map { EndpointJSON($0) }))
    }

    func delete(_ request: Request, caller: AdminCaller) async throws -> Response {
        let id = try request.parameters.require("wid")
        guard try await store.deleteEndpoint(id: id, audit: caller.audit("webhook.deleted", target: id)) else { throw APIProblem.notFound("There is no webhook '\(id)'.") }
        return Response(status: 204)
    }

    /// A new secret; the old one keeps signing too for 24 hours so receivers can switch over.
    func rotate(_ request: Request, caller: AdminCaller) async throws -> Response {
        let id = try request.parameters.require("wid")
        let secret = WebhookSecret.generate()
        let until = Date().addingTimeInterval(Self.rotationOverlap)
        guard let record = try await store.rotateEndpointSecret(
            id: id, newSecretCiphertext: Array(try secrets.seal(secret, context: id).utf8), previousValidUntil: until,
            audit: caller.audit("webhook.rotated", target: id))
        else { throw APIProblem.notFound("There is no webhook '\(id)'.") }
        return .json(encoding: EndpointJSON(record, secret: secret.encoded, previousSecretExpiresAt: Timestamp.rfc3339(until)))
    }

    func deliveries(_ request: Request, caller: AdminCaller) async throws -> Response {
        var statuses: [DeliveryStatus]?
        if let raw = try request.queryValue("status") {
            let names = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let list = names.compactMap(DeliveryStatus.init(rawValue:))
            guard !list.isEmpty, list.count == names.count else {
                throw APIProblem(.invalidParameter, "'status' is a comma-separated list of pending, succeeded, failed, dead.")
            }
            statuses = list
        }
        let limit = try request.pageLimit()
        // A cursor belongs to the list it pages: the same filters.
        var formID = try request.queryValue("formId")
        if let formID { try caller.require(form: formID) }
        // A token of one form lists that form's; of several, each page keeps only theirs.
        if formID == nil, let forms = caller.forms, forms.count == 1 { formID = forms.first }
        let scope = "deliveries:" + (statuses?.map(\.rawValue).joined(separator: ",") ?? "*") + ":" + (formID ?? "*")
        let cursor = try request.pageCursor(openedBy: cursors, scope: scope)
        let page = try await store.deliveries(status: statuses, formID: formID, limit: limit, cursor: cursor)
        let next = page.nextCursor.map { cursors.seal($0, scope: scope) }
        let items = page.items.filter { caller.reaches(form: $0.formID) }
        return .json(encoding: PageJSON(items: items.map { DeliveryJSON($0, fullURL: caller.role <= .editor) }, nextCursor: next))
    }

    func delivery(_ request: Request, caller: AdminCaller) async throws -> Response {
        let id = try request.parameters.require("did")
        guard let record = try await caller.delivery(id, from: store) else { throw APIProblem.notFound("There is no delivery '\(id)'.") }
        return .json(encoding: DeliveryJSON(record, withAttemptLog: true, fullURL: caller.role <= .editor))
    }

    func redeliver(_ request: Request, caller: AdminCaller) async throws -> Response {
        let id = try request.parameters.require("did")
        switch try await store.redeliver(id: id, now: Date(), audit: caller.audit("delivery.redelivered", target: id)) {
        case .queued:
            break
        case .unknownDelivery:
            throw APIProblem.notFound("There is no delivery '\(id)'.")
        case .endpointDisabled(let endpointID):
            throw APIProblem.endpointGone(delivery: id, endpoint: endpointID, why: "was disabled when it answered 410 Gone")
        case .endpointDeleted(let endpointID):
            throw APIProblem.endpointGone(delivery: id, endpoint: endpointID, why: "was deleted")
        case .inFlight(let leaseExpiresAt):
            // The lease bounds the wait: the attempt ends before it, or (after a crash) the lease
            // runs out and the delivery is due again by itself.
            let seconds = max(1, Int(leaseExpiresAt.timeIntervalSinceNow.rounded(.up)))
            var problem = APIProblem(.deliveryInFlight, "Delivery '\(id)' is being sent right now, and that attempt's result will be recorded; "
                    + "redeliver it once it is no longer in flight, at the latest in \(seconds) s when its lease ends.")
            problem.headers.append(("Retry-After", String(seconds)))
            throw problem
        }
        notify()
        // Read again rather than the row the guard read: the answer shows the delivery as queued anew.
        guard let record = try await store.delivery(id: id) else { throw APIProblem.notFound("There is no delivery '\(id)'.") }
        return .json(encoding: DeliveryJSON(record), status: 202)
    }
}
