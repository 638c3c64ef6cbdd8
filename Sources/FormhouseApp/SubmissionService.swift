import Crypto
import FormEngine
import FormStore
import Foundation
import Logging
import Metrics
import Synchronization
import Webhooks

/// Accepts submissions: parse once, pick the version, validate, store durably, answer. Failures are
/// ``SubmissionFailure``s; the HTTP answer for each is chosen elsewhere.
///
/// An `Idempotency-Key` makes a retry safe: the same key and body within 24 hours answer the first
/// answer again and store nothing (the store owns the window); while the first is still being stored,
/// a second one gets 409.
final class SubmissionService: Sendable {
    private let catalog: FormCatalog
    private let store: any FormStore
    private let options: ValidationOptions
    /// Charged when a body's `formVersion` names an old version not in memory, which costs a compile.
    private let rateLimiter: RateLimiter?
    private let inFlight = Mutex<Set<String>>([])
    private let counters = Mutex<[String: (accepted: Counter, rejected: Counter)]>([:])
    /// Signs the links to files that webhook payloads carry.
    private let links: FileLinks?
    /// Seals what a form's sensitive inputs were given before it is stored, and opens it for a replay.
    private let sensitive: SensitiveValues

    init(
        catalog: FormCatalog, store: any FormStore, sensitive: SensitiveValues, maxValueLength: Int, rateLimiter: RateLimiter? = nil,
        links: FileLinks? = nil
    ) {
        self.catalog = catalog
        self.store = store
        self.sensitive = sensitive
        self.rateLimiter = rateLimiter
        self.links = links
        var options = ValidationOptions()
        options.maxValueLength = maxValueLength
        self.options = options
    }

    /// What a request carried, after the HTTP layer checked media type and size.
    struct Input {
        var formID: String
        var body: [UInt8]
        var idempotencyKey: String?
        var clientAddress: String
        /// The draft this submits and the revision its values are from: closed in the submission's
        /// transaction if it is still at that revision.
        var draft: (id: String, revision: Int)? = nil
        /// The languages to write error messages in (`Accept-Language`, `?lang=`).
        var languages = LanguagePriorityList()
    }

    enum Outcome {
        case accepted(body: [UInt8])
        case replayed(body: [UInt8])
    }

    /// Bodies larger than this are parsed and validated on Dispatch's global threads: a hostile 1 MiB
    /// body can cost 0.4 s of CPU, which on an event loop would stall every connection it serves.
    /// Ordinary submissions (a few KiB) stay on the loop, where the hop would cost more than the work.
    static let offloadBytes = 64 * 1024

    /// Validates without storing (`POST /validate`).
    func validate(formID: String, body: [UInt8], clientAddress: String, languages: LanguagePriorityList) async throws -> ValidationResult {
        let (submission, form) = try await prepare(formID: formID, body: body, clientAddress: clientAddress)
        return try await validate(submission, with: form, bodyBytes: body.count, languages: languages)
    }

    /// Judges a draft's values: only the inputs answered (``ValidationOptions/partial``).
    func validateDraft(_ values: JSONObject, with form: PublishedForm, bodyBytes: Int, languages: LanguagePriorityList) async throws -> ValidationResult {
        var body = JSONObject()
        body["values"] = .object(values)
        let submission = try Submission(value: .object(body))
        return try await validate(submission, with: form, bodyBytes: bodyBytes, partial: true, languages: languages)
    }

    private func validate(
        _ submission: Submission, with form: PublishedForm, bodyBytes: Int, partial: Bool = false, languages: LanguagePriorityList
    ) async throws -> ValidationResult {
        var options = self.options
        options.partial = partial
        options.languages = languages
        if form.definition.hasFileInputs {
            options.files = try await uploadedFiles(form.definition.fileIDs(in: submission))
        }
        // A form whose regexes may be slow is judged off the loop whatever the body's size: a few
        // values of 10,000 characters can cost seconds there (docs/engine.md, "How it works").
        guard bodyBytes > Self.offloadBytes || form.definition.hasSlowPatterns else {
            return form.definition.validate(submission, options: options)
        }
        let judged = options
        return try await Offload.run { form.definition.validate(submission, options: judged) }
    }

    func submit(_ input: Input) async throws -> Outcome {
        guard let key = input.idempotencyKey else {
            let (submission, form) = try await prepare(formID: input.formID, body: input.body, clientAddress: input.clientAddress)
            return try await accept(input, submission: submission, form: form, bodyHash: nil)
        }
        try Self.checkIdempotencyKey(key)
        let slot = input.formID + "\u{0}" + key
        guard inFlight.withLock({ $0.insert(slot).inserted }) else {
            throw SubmissionFailure.idempotencyKeyInFlight
        }
        defer { _ = inFlight.withLock { $0.remove(slot) } }
        // Before the form is looked up: a retry of an acknowledged submission gets its answer even
        // if the form was deleted or changed since.
        if let earlier = try await store.submission(formID: input.formID, idempotencyKey: key) {
            return try await replay(earlier, body: input.body)
        }
        let (submission, form) = try await prepare(formID: input.formID, body: input.body, clientAddress: input.clientAddress)
        return try await accept(input, submission: submission, form: form, bodyHash: sensitive.bodyDigest(input.body))
    }

    private func prepare(formID: String, body: [UInt8], clientAddress: String) async throws -> (Submission, PublishedForm) {
        guard let current = try await catalog.current(id: formID) else {
            throw SubmissionFailure.formNotFound(formID: formID)
        }
        let submission: Submission
        do throws(SubmissionError) {
            if body.count > Self.offloadBytes {
                submission = try await Self.parseOffLoop(body)
            } else {
                submission = try Submission(json: body)
            }
        } catch {
            throw SubmissionFailure.unreadable(error)
        }
        return (submission, try await version(submission.formVersion, of: current, clientAddress: clientAddress))
    }

    /// The version a body names (`formVersion`) of the form whose current version is `current`, or
    /// `current` when it names none; a version the form never had is `unknownFormVersion`.
    func version(_ requested: Int?, of current: PublishedForm, clientAddress: String) async throws -> PublishedForm {
        guard let requested, requested != current.version else { return current }
        // Compiling an old version costs like a submission: it draws on the same rate limit.
        guard requested > 0, requested < current.version,
              let old = try await catalog.oldVersion(id: current.id, version: requested, charge: { try rateLimiter?.admit(clientAddress) }) else {
            throw SubmissionFailure.unknownFormVersion(formID: current.id, requested: requested, current: current.version)
        }
        return old
    }

    /// What the store knows of the uploads a submission names, as the engine judges them. An
    /// unfinished upload past its expiry is as good as swept.
    private func uploadedFiles(_ ids: [String]) async throws -> [String: UploadedFile] {
        guard !ids.isEmpty else { return [:] }
        // More ids than any form's inputs can hold are judged unknown without a query.
        let records = try await store.uploads(ids: Array(Set(ids).prefix(1_000)))
        let now = Date()
        var files: [String: UploadedFile] = [:]
        for record in records where record.submissionID != nil || record.expiresAt > now {
            files[record.id] = UploadedFile(
                id: record.id, formID: record.formID, field: record.field, contentType: record.contentType,
                size: record.received, sha256: record.sha256 ?? "", filename: record.filename,
                isComplete: record.isComplete, isBound: record.submissionID != nil)
        }
        return files
    }

    private func accept(_ input: Input, submission: Submission, form: PublishedForm, bodyHash: String?) async throws -> Outcome {
        let result = try await validate(submission, with: form, bodyBytes: input.body.count, languages: input.languages)
        guard result.isValid else {
            await countRejection(formID: form.id, result.errors)
            throw SubmissionFailure.invalid(result.errors, languages: result.messageLanguages)
        }
        // Whole milliseconds, as stored, so that a replay rebuilt from the row is this answer byte for byte.
        let receivedAt = Date(storedMilliseconds: Date().storedMilliseconds)
        let id = RandomID.timeOrdered(prefix: "sub_", at: receivedAt)
        let time = Timestamp.rfc3339(receivedAt)
        let values = result.values.serialized()
        let body = AcceptedSubmissionJSON.bytes(id: id, formID: form.id, formVersion: form.version, receivedAt: time, values: values)
        // Receivers fetch the files by signed links, which only the webhook payload carries.
        let fileIDs = Set(result.fileIDs)
        let hookBody: [UInt8]
        if let links, !fileIDs.isEmpty {
            let linked = FileValues.addingLinks(to: result.values, ids: fileIDs, links: links).serialized()
            hookBody = AcceptedSubmissionJSON.bytes(id: id, formID: form.id, formVersion: form.version, receivedAt: time, values: linked)
        } else {
            hookBody = body
        }
        var stored = (values: values, rawBody: input.body)
        var webhookPayload: @Sendable () -> [UInt8] = { WebhookPayload.envelope(time: time, data: hookBody) }
        if form.definition.hasSensitiveInputs {
            // Sealed before the row is written; the 201 and the receiver still get the values in clear.
            stored.values = try sensitive.seal(result.values, rowID: id, definition: form.definition).serialized()
            stored.rawBody = try sensitive.sealed(input.body, .rawBody, rowID: id)
            let payload = try sensitive.sealed(webhookPayload(), .webhookPayload, rowID: id)
            webhookPayload = { payload }
        }
        let record = NewSubmission(
            SubmissionRecord(
                id: id, formID: form.id, formVersion: form.version, receivedAt: receivedAt,
                values: String(decoding: stored.values, as: UTF8.self),
                rawBody: stored.rawBody, idempotencyKey: input.idempotencyKey, bodyHash: bodyHash,
                clientAddress: input.clientAddress),
            uploadIDs: result.fileIDs,
            draftID: input.draft?.id,
            draftRevision: input.draft?.revision,
            webhookPayload: webhookPayload
        )
        let outcome: InsertOutcome
        do {
            outcome = try await store.insertSubmission(consume record)
        } catch StoreError.unavailable {
            throw SubmissionFailure.notStored
        } catch StoreError.outcomeUnknown {
            // The COMMIT may be in the log; only a key can tell a retry from a second submission.
            throw SubmissionFailure.outcomeUnknown(keyed: input.idempotencyKey != nil)
        }
        switch outcome {
        case .inserted:
            counters(form.id).accepted.increment()
            return .accepted(body: body)
        case .duplicate(let existing):
            // Another writer stored the same key first; answer as a replay would.
            return try await replay(existing, body: input.body)
        case .draftSubmitted(let existing):
            // A second submit of the draft raced this one and stored first: answer what it stored.
            return .replayed(body: try await answer(existing))
        case .uploadsUnavailable(let ids):
            // Another submission took them between validation and commit.
            let fields = FileValues.fields(of: Set(ids), in: result.values)
            let messages = UploadMessages(preferences: input.languages, defaultLanguage: form.definition.defaultLanguage)
            let errors = ids.map { messages.bound(field: fields[$0] ?? $0) }
            await countRejection(formID: form.id, errors)
            throw SubmissionFailure.invalid(errors, languages: [messages.language])
        }
    }

    /// Counts a refused submission in the metrics and, durably, in the form's statistics before it is
    /// answered. A store that cannot count it costs the count, not the answer: the client is told
    /// what was wrong either way.
    private func countRejection(formID: String, _ errors: [FieldError]) async {
        counters(formID).rejected.increment()
        do {
            try await store.recordRejection(Rejection(formID: formID, at: Date(), failures: FieldFailure.counted(errors)))
        } catch {
            Self.logger.warning("a rejection could not be counted in the form's statistics", metadata: ["form": "\(formID)", "error": "\(error)"])
        }
    }

    private static let logger = Logger(label: "formhouse.submissions")

    /// `formhouse_submissions_total` for a form, by outcome, made once per form.
    private func counters(_ formID: String) -> (accepted: Counter, rejected: Counter) {
        counters.withLock { table in
            if let found = table[formID] { return found }
            let made = (
                accepted: Counter(label: "formhouse_submissions_total", dimensions: [("form", formID), ("outcome", "accepted")]),
                rejected: Counter(label: "formhouse_submissions_total", dimensions: [("form", formID), ("outcome", "rejected")]))
            table[formID] = made
            return made
        }
    }

    private func replay(_ earlier: SubmissionRecord, body: [UInt8]) async throws -> Outcome {
        guard sensitive.isBody(body, of: earlier.bodyHash) else {
            throw SubmissionFailure.idempotencyKeyReused
        }
        return .replayed(body: try await answer(earlier))
    }

    /// The 201 body of a stored submission, as it was first answered: its sealed values opened with
    /// the definition of its version (kept even when the form was deleted since).
    func answer(_ stored: SubmissionRecord) async throws -> [UInt8] {
        var values = Array(stored.values.utf8)
        if SensitiveValues.mayHoldSealedValues(stored.values),
           let form = try await catalog.version(id: stored.formID, version: stored.formVersion), form.definition.hasSensitiveInputs {
            let parsed = try JSONValue(parsing: values)
            values = try sensitive.open(parsed, rowID: stored.id, definition: form.definition).serialized()
        }
        return AcceptedSubmissionJSON.bytes(
            id: stored.id, formID: stored.formID, formVersion: stored.formVersion,
            receivedAt: Timestamp.rfc3339(stored.receivedAt), values: values)
    }

    private static func parseOffLoop(_ body: [UInt8]) async throws(SubmissionError) -> Submission {
        // The parse's own error comes back in the Result; Offload.run itself does not fail.
        let result = (try? await Offload.run { Result { () throws(SubmissionError) in try Submission(json: body) } })
            ?? .failure(SubmissionError(code: .malformedJSON, message: "The body could not be read."))
        return try result.get()
    }

    static func checkIdempotencyKey(_ key: String) throws {
        guard !key.isEmpty, key.utf8.count <= 255, key.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else {
            throw SubmissionFailure.invalidIdempotencyKey(
                reason: "Idempotency-Key must be 1–255 visible ASCII characters, for example a UUID.")
        }
    }

    /// Lowercase hex SHA-256, for idempotency body checks and definition content hashes.
    static func hash(_ bytes: [UInt8]) -> String {
        Hex.encode(SHA256.hash(data: bytes))
    }
}
