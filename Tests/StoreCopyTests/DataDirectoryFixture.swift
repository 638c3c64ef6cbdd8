import FormStore
import Foundation

/// A data directory filled through the SQLite store's public API with every kind of row the copy
/// moves: forms with several versions and a deleted one, submissions with and without idempotency
/// keys (one body not UTF-8, one over 1 MiB), uploads bound, complete, in progress and without a
/// size (one tied to a draft), drafts open, submitted and anonymous, two endpoints (one with a rotated
/// secret), deliveries that were attempted, left leased, or never claimed, and the forms' daily
/// counters with a rejection.
struct DataDirectoryFixture {
    /// Rows per table, as the fixture made them.
    static let counts: [String: Int] = [
        "forms": 3, "form_versions": 6, "submissions": 40, "webhook_endpoints": 2, "deliveries": 60,
        "delivery_attempts": 4, "uploads": 5, "drafts": 3, "draft_starts": 1, "form_daily_stats": 3, "form_rejection_stats": 2,
        "audit_log": 4,
    ]
    static let nonUTF8Body: [UInt8] = [0xFF, 0xFE, 0x00, 0xC3, 0x28, 0x80, 0x7B]
    /// Over 1 MiB, and over the test's batch byte limit.
    static let largeBody: [UInt8] = (0..<(1_200_000)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    static let secret: [UInt8] = [0x00, 0xFF, 0x10, 0x80, 0xC0, 0x01, 0x02, 0xFE]

    /// The submission ids whose bodies are ``nonUTF8Body`` and ``largeBody``.
    static let nonUTF8ID = "sub_00"
    static let largeID = "sub_01"

    static func make(in directory: URL) async throws {
        let store = try SQLiteFormStore(directory: directory)
        defer { store.close() }
        for version in 1...3 {
            _ = try await store.saveFormVersion(
                formID: "alpha", definition: #"{"id":"alpha","v":\#(version),"title":"Ä \#(version)"}"#,
                title: "Alpha \(version)", contentHash: "alpha-\(version)", createOnly: false, precondition: nil,
                audit: AuditNote(actor: "ops", action: "form.saved", route: "PUT /v1/admin/forms/{id}", target: "alpha",
                                 detail: version == 1 ? #"{"retentionDays":{"after":30,"before":null}}"# : nil))
        }
        _ = try await store.saveFormVersion(formID: "beta", definition: #"{"id":"beta"}"#, title: "Beta", contentHash: "beta")
        for version in 1...2 {
            _ = try await store.saveFormVersion(
                formID: "gone", definition: #"{"id":"gone","v":\#(version)}"#, title: "Gone", contentHash: "gone-\(version)")
        }
        _ = try await store.deleteForm(
            id: "gone", precondition: nil, audit: AuditNote(actor: "Zoë", action: "form.deleted", route: "DELETE /v1/admin/forms/{id}", target: "gone"))

        let first = try await store.createEndpoint(NewEndpoint(
            formID: "alpha", url: "https://hooks.example/a", secretCiphertext: secret))
        _ = try await store.createEndpoint(NewEndpoint(
            formID: "alpha", url: "https://hooks.example/b", secretCiphertext: secret.reversed()))
        _ = try await store.rotateEndpointSecret(
            id: first.id, newSecretCiphertext: secret + [0x99], previousValidUntil: Date().addingTimeInterval(3600))

        // upl_0 and upl_1 are bound to sub_04, upl_2 is complete, upl_3 (no size, no name) and upl_4 are not.
        for index in 0..<5 {
            try await store.createUpload(UploadRecord(
                id: "upl_\(index)", formID: index == 4 ? "beta" : "alpha", field: "photos[\(index)]",
                filename: index == 3 ? nil : "Фото \(index).jpg", contentType: "application/octet-stream",
                declaredSize: index == 3 ? nil : 1_000 + index, received: 100 * index, sha256: nil, isComplete: false,
                storageKey: "uploads/upl_\(index)", clientAddress: index % 2 == 0 ? "192.0.2.9" : nil,
                createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)),
                expiresAt: Date(timeIntervalSince1970: 1_700_086_400 + Double(index))))
        }
        for index in 0..<3 {
            try await store.completeUpload(
                id: "upl_\(index)", size: 1_000 + index, sha256: String(repeating: "\(index)f", count: 32), contentType: "image/png")
        }

        // drf_0 is open and holds upl_3, drf_1 is submitted as sub_05, drf_2 has no client address (drf_0
        // and drf_1 are one client's starts in one hour).
        for index in 0..<3 {
            let created = Date(timeIntervalSince1970: 1_700_000_000 + Double(index) / 8)
            try await store.createDraft(DraftRecord(
                id: "drf_\(index)", formID: index == 2 ? "beta" : "alpha", formVersion: index == 2 ? 1 : 3,
                tokenHash: String(repeating: "\(index)e", count: 32), revision: index + 1, values: #"{"name":"Zoë \#(index)"}"#,
                clientAddress: index == 2 ? nil : "192.0.2.7", createdAt: created, updatedAt: created.addingTimeInterval(5),
                expiresAt: created.addingTimeInterval(30 * 86_400)),
                uploadIDs: index == 0 ? ["upl_3"] : [], maxPerClientPerHour: 10)
        }

        for index in 0..<40 {
            let body: [UInt8] = switch index {
            case 0: nonUTF8Body
            case 1: largeBody
            default: Array(#"{"n":\#(index)}"#.utf8)
            }
            let formID = index % 4 == 3 ? "beta" : "alpha"
            let record = SubmissionRecord(
                id: String(format: "sub_%02d", index), formID: formID, formVersion: formID == "alpha" ? 3 : 1,
                receivedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 1.5),
                values: #"{"n":\#(index)}"#, rawBody: body, idempotencyKey: index % 3 == 0 ? "key-\(index)" : nil,
                bodyHash: index % 3 == 0 ? "hash-\(index)" : nil, clientAddress: index % 2 == 0 ? "192.0.2.\(index)" : nil)
            let payload = Array(#"{"submission":"sub_\#(index)","bytes":"\#(body.count)"}"#.utf8) + [0xFF]
            let uploads = index == 4 ? ["upl_0", "upl_1"] : []
            _ = try await store.insertSubmission(NewSubmission(
                record, uploadIDs: uploads, draftID: index == 5 ? "drf_1" : nil, webhookPayload: { payload }))
        }

        // Counted on a day of its own: alpha has a day of submissions and a day of rejections, beta one.
        try await store.recordRejection(Rejection(
            formID: "alpha", at: Date(timeIntervalSince1970: 1_700_100_000),
            failures: [FieldFailure(field: "photos[0]", code: "required"), FieldFailure(field: "Имя", code: "tooLong")]))

        let claimed = try await store.claimDueDeliveries(owner: "worker-1", limit: 6, now: Date(), lease: 600)
        let outcomes: [DeliveryOutcome] = [.succeeded, .retry(at: Date().addingTimeInterval(60)), .dead, .succeeded]
        for (delivery, outcome) in zip(claimed, outcomes) {
            let succeeded = outcome == .succeeded
            try await store.recordAttempt(
                deliveryID: delivery.id, owner: "worker-1",
                attempt: AttemptRecord(
                    attemptedAt: Date(), statusCode: succeeded ? 200 : 500, durationMilliseconds: 42,
                    error: succeeded ? nil : "HTTP 500", responseExcerpt: succeeded ? "ok" : "Ü boom"),
                outcome: outcome)
        }
    }
}
