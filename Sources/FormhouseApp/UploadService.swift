import Crypto
import FileStorage
import FormEngine
import FormStore
import Foundation
import HTTPServer
import Logging

/// Receives simple uploads: the body goes to storage as it arrives, hashed on the way, refused the
/// moment it passes the input's `maxSize` or its first bytes contradict its type. The upload's
/// record is written before the first byte, so one cut short is swept like any unbound upload.
struct UploadService: Sendable {
    let catalog: FormCatalog
    let store: any FormStore
    let storage: any BlobStorage
    let limits: UploadLimits
    /// The configuration's cap on any input's `maxSize`.
    let maxFileBytes: Int
    /// How long an upload waits to be bound to a submission before it is swept.
    let unboundLifetime: TimeInterval
    let logger: Logger

    /// Which input of which form an upload is for, and what it may be.
    struct Target: Sendable {
        var form: PublishedForm
        var rules: FileInputRules
        /// The input's `maxSize`, capped by the configuration.
        var maxSize: Int
        /// The refusals of the file, in the language the request asks for.
        var messages: UploadMessages

        /// A refusal of the file, as a 422 in that language.
        func refusal(_ error: FieldError) -> SubmissionFailure {
            .invalid([error], languages: [messages.language])
        }
    }

    /// The file input `field` of form `formID`, or the problem to answer; `languages` are the ones
    /// the request asks for, for the messages of a refusal.
    func target(formID: String, field: String?, languages: LanguagePriorityList) async throws -> Target {
        guard let form = try await catalog.current(id: formID) else {
            throw APIProblem.notFound("There is no form '\(formID)'.")
        }
        guard let field, !field.isEmpty else {
            throw APIProblem(.invalidParameter, "Name the file input the upload is for: ?field=<key path>.")
        }
        guard let rules = form.definition.fileInput(at: field) else {
            throw APIProblem(.invalidParameter, "Form '\(formID)' has no file input '\(field)'.")
        }
        return Target(form: form, rules: rules, maxSize: min(rules.maxSize, maxFileBytes),
                      messages: UploadMessages(preferences: languages, defaultLanguage: form.definition.defaultLanguage))
    }

    /// Refuses a declared type the input does not accept (422 `fileType`), and a size over its limit (413).
    func check(_ target: Target, field: String, declaredType: String, length: Int?) throws {
        let type = MediaSniffer.essence(declaredType)
        if type != "application/octet-stream", !target.rules.accepts(mediaType: type) {
            throw target.refusal(target.messages.typeNotAccepted(type, by: target.rules, field: field))
        }
        if let length, length > target.maxSize { throw Self.tooLarge(target) }
    }

    static func tooLarge(_ target: Target) -> APIProblem {
        APIProblem(.fileTooLarge, "The file is larger than the \(target.maxSize) bytes this input takes.",
                   extra: ProblemExtra(maxSize: target.maxSize))
    }

    /// A new upload's record, before its first byte.
    func newRecord(_ target: Target, field: String, filename: String?, contentType: String, declaredSize: Int?, client: String) -> UploadRecord {
        let now = Date(storedMilliseconds: Date().storedMilliseconds)
        let id = RandomID.timeOrdered(prefix: "upl_", at: now)
        return UploadRecord(
            id: id, formID: target.form.id, field: target.rules.path, filename: filename.flatMap(Filename.clean),
            contentType: MediaSniffer.essence(contentType), declaredSize: declaredSize, received: 0, sha256: nil,
            isComplete: false, storageKey: id, clientAddress: client, createdAt: now,
            expiresAt: now.addingTimeInterval(unboundLifetime), submissionID: nil)
    }

    /// Stores the body of a simple upload and answers its record, complete.
    func receive(
        formID: String, field: String?, contentType: String?, filename: String?, body: RequestBody, client: String,
        languages: LanguagePriorityList
    ) async throws -> UploadRecord {
        let target = try await target(formID: formID, field: field, languages: languages)
        guard let contentType, MediaSniffer.isWellFormed(contentType) else {
            throw APIProblem.unsupportedMediaType("Send the file's media type as its Content-Type (image/jpeg, application/pdf, …).")
        }
        try check(target, field: field ?? "", declaredType: contentType, length: body.expectedLength)
        try limits.checkFreeSpace(needed: body.expectedLength ?? 0)
        let slot = try limits.begin(client)
        defer { slot.end() }
        var record = newRecord(target, field: field ?? "", filename: filename, contentType: contentType,
                               declaredSize: body.expectedLength, client: client)
        try await store.createUpload(record)
        let writer: any BlobWriter
        do {
            writer = try await storage.makeWriter(key: record.storageKey, contentType: record.contentType)
        } catch {
            await forget(record)
            throw storageProblem(error)
        }
        do {
            var receiver = Receiver(target: target, declaredType: record.contentType, field: field ?? "")
            while let part = try await body.next() {
                try receiver.take(part)
                try await writer.append(part)
                try await limits.pace(client, bytes: part.count)
                if receiver.crossedCheckpoint { try limits.checkFreeSpace() }
            }
            let storedType = try receiver.finish()
            _ = try await Offload.offLoop { try await writer.finish() }
            record.contentType = storedType
            record.sha256 = receiver.sha256
            record.received = receiver.size
            record.isComplete = true
            try await store.completeUpload(id: record.id, size: receiver.size, sha256: receiver.sha256, contentType: storedType)
            return record
        } catch {
            await writer.abort()
            await forget(record)
            if error is BlobStorageError { throw storageProblem(error) }
            throw error
        }
    }

    /// Deletes an upload no submission holds: its record first, which fails if a submission bound it
    /// meanwhile, then its bytes (so bytes a submission holds are never deleted). Returns whether
    /// the record went.
    @discardableResult
    func forget(_ record: UploadRecord) async -> Bool {
        let deleted: Bool
        do {
            deleted = try await store.deleteUnboundUpload(id: record.id)
        } catch {
            logger.warning("could not delete an upload's record; the sweeper will retry", metadata: ["upload": "\(record.id)", "error": "\(error)"])
            return false
        }
        guard deleted else { return false }
        do {
            try await storage.delete(key: record.storageKey)
        } catch {
            // Its record is gone, so nothing will look for it again: the operator can, by this line.
            logger.error("an upload's record was deleted but its bytes were not; delete the object by hand",
                         metadata: ["upload": "\(record.id)", "key": "\(record.storageKey)", "error": "\(error)"])
        }
        return true
    }

    func storageProblem(_ error: any Error) -> APIProblem {
        logger.error("file storage failed", metadata: ["error": "\(error)"])
        if let storage = error as? BlobStorageError { return storage.problem }
        return APIProblem.unavailable("The file storage did not answer; try again shortly.", retryAfter: 5)
    }
}

/// Follows an upload's bytes as they arrive: its size against the limit, its hash, and its first
/// bytes, which say what it really is.
struct Receiver {
    let target: UploadService.Target
    let declaredType: String
    let field: String
    private(set) var size = 0
    private var hasher = SHA256()
    private var prefix: [UInt8] = []
    private var sniffed = false
    private var storedType: String
    /// Set when the last part crossed a multiple of ``checkpointBytes``.
    private(set) var crossedCheckpoint = false
    static let checkpointBytes = 8 << 20

    init(target: UploadService.Target, declaredType: String, field: String) {
        self.target = target
        self.declaredType = declaredType
        self.field = field
        storedType = declaredType
    }

    mutating func take(_ part: [UInt8]) throws {
        let before = size
        size += part.count
        guard size <= target.maxSize else { throw UploadService.tooLarge(target) }
        crossedCheckpoint = before / Self.checkpointBytes != size / Self.checkpointBytes
        hasher.update(data: part)
        if !sniffed {
            prefix += part.prefix(MediaSniffer.prefixLength - prefix.count)
            if prefix.count >= MediaSniffer.prefixLength { try sniff() }
        }
    }

    /// The type to store, once the whole file is in.
    mutating func finish() throws -> String {
        if !sniffed { try sniff() }
        return storedType
    }

    var sha256: String { Hex.encode(hasher.finalize()) }

    private mutating func sniff() throws {
        sniffed = true
        let found = MediaSniffer.mediaType(of: prefix[...])
        let declared = MediaSniffer.essence(declaredType)
        if declared != "application/octet-stream", MediaSniffer.contradicts(declared: declared, sniffed: found) {
            throw target.refusal(target.messages.contentContradicts(declared: declared, found: found, field: field))
        }
        let type = MediaSniffer.storedType(declared: declared, sniffed: found)
        // Checked again here: a declared type the input takes may turn out to be one it does not
        // (`application/octet-stream`, or bytes of another format).
        guard target.rules.accepts(mediaType: type) else {
            throw target.refusal(target.messages.typeNotAccepted(type, by: target.rules, field: field))
        }
        storedType = type
    }
}
