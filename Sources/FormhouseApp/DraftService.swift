import FormEngine
import FormStore
import Foundation

/// Drafts: answers saved as a person goes, resumed with the draft's token on any device, submitted
/// once. Every draft call but creation opens the draft with its token first; an unknown draft, an
/// expired one and a wrong or missing token are one and the same 404: the draft is looked up and a
/// digest compared in each case.
final class DraftService: Sendable {
    struct Settings: Sendable {
        /// How long a draft lives after its last change.
        var lifetime: TimeInterval
        var maxPerClientPerHour: Int
        /// The changes one draft may take.
        var maxRevisions: Int
        /// The most bytes a draft's values may take, as written: a submission's body limit.
        var maxValuesBytes: Int
        /// How long an upload a draft no longer names waits for a submission, as any unbound upload does.
        var releasedUploadLifetime: TimeInterval
    }

    /// A draft with its values read and judged.
    struct Draft: Sendable {
        var record: DraftRecord
        var values: JSONObject
        /// The errors of the inputs answered so far.
        var errors: [FieldError]
        /// The languages of the errors' messages (``ValidationResult/messageLanguages``).
        var languages: [String] = []
        /// Only when just created.
        var token: String?
    }

    private let catalog: FormCatalog
    private let store: any FormStore
    private let submissions: SubmissionService
    /// Seals a draft's values whole when its form has sensitive inputs: what a draft holds is not yet
    /// validated, so a sensitive answer may stand anywhere in it (under a key path, in the wrong shape).
    private let sensitive: SensitiveValues
    private let settings: Settings
    /// Charged when a draft of an old version needs that version compiled.
    private let rateLimiter: RateLimiter?

    /// Times a change or a submit is tried when other changes land between its read and its write,
    /// before the client is told to retry: each round stores at least one of the racing changes, so
    /// this many devices saving one draft at once all get through.
    private static let attempts = 5

    init(
        catalog: FormCatalog, store: any FormStore, submissions: SubmissionService, sensitive: SensitiveValues, settings: Settings,
        rateLimiter: RateLimiter? = nil
    ) {
        self.catalog = catalog
        self.store = store
        self.submissions = submissions
        self.sensitive = sensitive
        self.settings = settings
        self.rateLimiter = rateLimiter
    }

    /// Starts a draft of the form's current version, or of the `formVersion` the body names (a client
    /// that cached an older one), with whatever values the body holds.
    func create(
        formID: String, body: [UInt8], clientAddress: String, languages: LanguagePriorityList = LanguagePriorityList(), now: Date = Date()
    ) async throws -> Draft {
        let parsed = try Self.startingValues(body)
        let form = try await version(formID: formID, requested: parsed.formVersion, clientAddress: clientAddress)
        let id = RandomID.make(prefix: "drf_")
        let (values, result) = try await judge(parsed.values, form: form, draftID: id, languages: languages)
        let token = DraftToken.make()
        let created = Date(storedMilliseconds: now.storedMilliseconds)
        let record = DraftRecord(
            id: id, formID: form.id, formVersion: form.version, tokenHash: DraftToken.hash(token),
            revision: 1, values: values, clientAddress: clientAddress, createdAt: created, updatedAt: created,
            expiresAt: created.addingTimeInterval(settings.lifetime))
        do {
            try await store.createDraft(record, uploadIDs: result.fileIDs, maxPerClientPerHour: settings.maxPerClientPerHour)
        } catch StoreError.limitReached {
            let hourLeft = 3_600 - Int(created.timeIntervalSince1970.truncatingRemainder(dividingBy: 3_600))
            throw APIProblem(.tooManyDrafts, "This address started \(settings.maxPerClientPerHour) drafts this hour; finish one or try again later.",
                             headers: [("Retry-After", String(max(1, hourLeft)))])
        }
        return Draft(record: record, values: parsed.values, errors: result.errors, languages: result.messageLanguages, token: token)
    }

    /// The draft and the errors of its answers.
    func read(
        id: String, token: String?, clientAddress: String, languages: LanguagePriorityList = LanguagePriorityList(), now: Date = Date()
    ) async throws -> Draft {
        let record = try await open(id: id, token: token, now: now)
        let (values, text) = try values(of: record)
        let form = try await version(of: record, clientAddress: clientAddress)
        let result = try await submissions.validateDraft(values, with: form, bodyBytes: text.count, languages: languages)
        return Draft(record: record, values: values, errors: result.errors, languages: result.messageLanguages)
    }

    /// Applies a JSON merge patch (RFC 7396) to the draft's values. With a revision from `ifMatch` the
    /// patch applies only to that revision; without, to whatever the draft holds when it is stored.
    /// `ifMatch` reads the revision from the request once the draft is open, so that a request for a
    /// draft it cannot open is the same 404 whatever else it holds.
    func patch(
        id: String, token: String?, patch body: [UInt8], ifMatch: () throws -> Int?, clientAddress: String,
        languages: LanguagePriorityList = LanguagePriorityList(), now: Date = Date()
    ) async throws -> Draft {
        var record = try await open(id: id, token: token, now: now)
        let expectedRevision: Int?
        do {
            expectedRevision = try ifMatch()
        } catch var problem as APIProblem {
            // What the client needs to go on: the revision to send next.
            problem.headers.append(("ETag", "\"\(record.revision)\""))
            problem.extra.currentRevision = record.revision
            throw problem
        }
        let patch: JSONValue
        do {
            // One level less than a submission may nest: submitting wraps the values in a body.
            patch = try JSONValue(parsing: body, limits: JSONLimits(maxDepth: SubmissionLimits().maxDepth - 1))
        } catch {
            throw APIProblem(.invalidBody, "The merge patch is not valid JSON: \(error.message).", extra: ProblemExtra(offset: error.offset))
        }
        // Without If-Match a patch made from an older revision still applies, to the values as they
        // are: a change stored in between is merged with, not overwritten.
        for _ in 0..<Self.attempts {
            try check(record, expectedRevision: expectedRevision)
            guard case .object(let values) = JSONValue.object(try self.values(of: record).object).mergePatched(with: patch) else {
                throw APIProblem(.invalidBody, "A draft's values are an object: send a merge patch object such as {\"name\": \"Ana\"}.")
            }
            let form = try await version(of: record, clientAddress: clientAddress)
            let (text, result) = try await judge(values, form: form, draftID: record.id, languages: languages)
            let updated = Date(storedMilliseconds: now.storedMilliseconds)
            let change = DraftChange(
                id: record.id, expectedRevision: record.revision, values: text, uploadIDs: result.fileIDs,
                updatedAt: updated, expiresAt: updated.addingTimeInterval(settings.lifetime),
                releasedUploadsExpireAt: updated.addingTimeInterval(settings.releasedUploadLifetime))
            switch try await store.updateDraft(change) {
            case .updated(let stored):
                return Draft(record: stored, values: values, errors: result.errors, languages: result.messageLanguages)
            case .revisionMismatch(let current), .submitted(let current):
                record = current
            case .notFound:
                throw Self.notFound(id)
            }
        }
        throw Self.busy(id)
    }

    /// Deletes the draft; its uploads no submission took go with it.
    func delete(id: String, token: String?, now: Date = Date()) async throws {
        let record = try await open(id: id, token: token, now: now)
        guard try await store.deleteDraft(id: record.id) else { throw Self.notFound(id) }
    }

    /// Submits the draft's values against its version, as `POST /submissions` would; the draft is
    /// closed in the submission's transaction, at the revision whose values were submitted. A
    /// submitted draft answers its submission again, until the draft expires.
    func submit(
        id: String, token: String?, clientAddress: String, languages: LanguagePriorityList = LanguagePriorityList(), now: Date = Date()
    ) async throws -> SubmissionService.Outcome {
        for _ in 0..<Self.attempts {
            let record = try await open(id: id, token: token, now: now)
            if let submissionID = record.submissionID {
                guard let stored = try await store.submission(id: submissionID) else { throw Self.notFound(id) }
                return .replayed(body: try await submissions.answer(stored))
            }
            // The body a client would have sent: stored as the submission's raw body, like any other.
            var body = Array(#"{"formVersion":"#.utf8)
            body.append(contentsOf: String(record.formVersion).utf8)
            body.append(contentsOf: #","values":"#.utf8)
            body.append(contentsOf: try values(of: record).text)
            body.append(UInt8(ascii: "}"))
            do {
                return try await submissions.submit(.init(
                    formID: record.formID, body: body, idempotencyKey: nil, clientAddress: clientAddress,
                    draft: (id: record.id, revision: record.revision), languages: languages))
            } catch StoreError.notFound {
                // Deleted or swept between opening it and the commit.
                throw Self.notFound(id)
            } catch StoreError.conflict {
                // Changed by another device after it was read: submit what it holds now.
                continue
            }
        }
        throw Self.busy(id)
    }

    /// The draft `id` when `token` opens it and it has not expired; else the one 404 for every such case.
    private func open(id: String, token: String?, now: Date) async throws -> DraftRecord {
        // An id that is no draft id is not looked up: whoever sent it knows it is none.
        let record = Self.isDraftID(id) ? try await store.draft(id: id) : nil
        // Compared even without a draft, so that an unknown id costs what a wrong token does.
        let opens = DraftToken.matches(token, storedHash: record?.tokenHash ?? DraftToken.absentHash)
        guard let record, opens, record.expiresAt > now else { throw Self.notFound(id) }
        return record
    }

    private func check(_ record: DraftRecord, expectedRevision: Int?) throws {
        if record.submissionID != nil {
            throw APIProblem(.draftSubmitted, "Draft '\(record.id)' was submitted and takes no more changes.")
        }
        if let expectedRevision, expectedRevision != record.revision {
            throw APIProblem(.preconditionFailed,
                             "Draft '\(record.id)' is at revision \(record.revision), not \(expectedRevision): another device saved first. Read it, apply your change again and send it with If-Match: \"\(record.revision)\".",
                             headers: [("ETag", "\"\(record.revision)\"")], extra: ProblemExtra(currentRevision: record.revision))
        }
        // Revision 1 is the draft as created; each change adds one.
        guard record.revision <= settings.maxRevisions else {
            throw APIProblem(.draftRevisionLimit, "Draft '\(record.id)' has taken \(settings.maxRevisions) changes; submit it or start a new one.")
        }
    }

    /// The values as stored (sealed whole when the form has sensitive inputs), within the size a
    /// submission may have, and their judgement.
    private func judge(
        _ values: JSONObject, form: PublishedForm, draftID: String, languages: LanguagePriorityList
    ) async throws -> (String, ValidationResult) {
        let text = JSONValue.object(values).serialized()
        guard text.count <= settings.maxValuesBytes else {
            throw APIProblem(.draftTooLarge, "A draft's values may take \(settings.maxValuesBytes) bytes as JSON, as a submission may; these take \(text.count).")
        }
        let result = try await submissions.validateDraft(values, with: form, bodyBytes: text.count, languages: languages)
        let stored = form.definition.hasSensitiveInputs ? try sensitive.sealed(text, .value, rowID: draftID) : text
        return (String(decoding: stored, as: UTF8.self), result)
    }

    /// The version the draft was started on, even once the form has moved on: an old one not in memory
    /// costs a compile, charged to the client's rate limit and capped as every old version is. A draft
    /// of a deleted form can still be read, changed and deleted; submitting it is 404, as a submission
    /// to the form is.
    private func version(of record: DraftRecord, clientAddress: String) async throws -> PublishedForm {
        if let current = try await catalog.current(id: record.formID), current.version == record.formVersion { return current }
        guard let form = try await catalog.oldVersion(
            id: record.formID, version: record.formVersion, charge: { try rateLimiter?.admit(clientAddress) }) else {
            throw Self.notFound(record.id)
        }
        return form
    }

    private func version(formID: String, requested: Int?, clientAddress: String) async throws -> PublishedForm {
        guard let current = try await catalog.current(id: formID) else { throw SubmissionFailure.formNotFound(formID: formID) }
        return try await submissions.version(requested, of: current, clientAddress: clientAddress)
    }

    /// A submission body, or one with no values yet: nothing, `{}`, or `{"formVersion": 2}`.
    private static func startingValues(_ body: [UInt8]) throws -> Submission {
        do throws(SubmissionError) {
            guard !body.isEmpty else { return try Submission(value: ["values": [:]]) }
            do {
                return try Submission(json: body)
            } catch where error.code == .invalidShape {
                guard case .object(var object)? = try? JSONValue(parsing: body),
                      object["values"] == nil, object["components"] == nil else { throw error }
                object["values"] = .object(JSONObject())
                return try Submission(value: .object(object))
            }
        } catch {
            throw SubmissionFailure.unreadable(error)
        }
    }

    /// The draft's values in clear, parsed and as text.
    private func values(of record: DraftRecord) throws -> (object: JSONObject, text: [UInt8]) {
        let text = try sensitive.opened(Array(record.values.utf8), .value, rowID: record.id)
        guard case .object(let values)? = try? JSONValue(parsing: text) else {
            throw StoreError.unavailable("draft \(record.id) holds values that are not a JSON object")
        }
        return (values, text)
    }

    /// `drf_` and base62: anything else cannot be a draft, and is not looked up.
    static func isDraftID(_ id: String) -> Bool {
        id.utf8.count <= 64 && id.hasPrefix("drf_") && id.utf8.dropFirst(4).allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
        }
    }

    static func notFound(_ id: String) -> APIProblem {
        APIProblem.notFound("There is no draft '\(id.prefix(64))' that this token opens: it may have expired, been deleted, or the token is wrong.")
    }

    /// Other changes kept landing between this request's read and its write.
    private static func busy(_ id: String) -> APIProblem {
        APIProblem(.conflict, "Draft '\(id)' is being changed by others at this moment; send the request again.")
    }
}
