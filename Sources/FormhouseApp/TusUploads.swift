import Crypto
import FileStorage
import FormEngine
import FormStore
import Foundation
import Glibc
import HTTPServer
import Synchronization

/// Resumable uploads, tus 1.0.0 (core, creation, termination, expiration) under
/// `/v1/forms/{id}/tus/`. The bytes of an unfinished upload are staged in a file of the data
/// directory; its offset in the store is only ever moved to bytes already synced to that file, so a
/// restart resumes where the store says. A finished upload goes to storage and is an `upl_…` upload
/// like a simple one.
final class TusUploads: Sendable {
    static let version = "1.0.0"
    static let extensions = "creation,termination,expiration"

    let uploads: UploadService
    private let staging: String
    /// Uploads with a PATCH in progress on this node: a second one at once would interleave bytes.
    private let busy = Mutex<Set<String>>([])
    /// Each unfinished upload's hash so far, with the offset it covers, so bytes are hashed as they
    /// arrive; missing (after a restart) or behind, it is rebuilt from the staged file.
    private let hashers = Mutex<[String: (offset: Int, hasher: SHA256)]>([:])
    /// How often a long PATCH makes its offset durable (sync, then record).
    static let progressBytes = 4 << 20

    init(uploads: UploadService, stagingDirectory: String) throws {
        self.uploads = uploads
        staging = stagingDirectory
        try FileManager.default.createDirectory(atPath: stagingDirectory, withIntermediateDirectories: true)
    }

    /// The header every tus answer carries.
    static let resumable: (String, String) = ("Tus-Resumable", version)

    func stagingPath(_ id: String) -> String {
        staging + "/" + id
    }

    // MARK: Creation

    /// `POST …/tus/`: checks the input, the length and the type, then records the upload and stages an empty file.
    func create(formID: String, headers: HTTPHeaders, client: String) async throws -> (UploadRecord, Int) {
        try Self.checkVersion(headers)
        if headers["Upload-Defer-Length"] != nil {
            throw APIProblem(.invalidParameter, "Upload-Defer-Length is not supported: send Upload-Length.")
        }
        guard let raw = headers["Upload-Length"], let length = Int(raw), length >= 0, raw.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            throw APIProblem(.invalidParameter, "Upload-Length must be the file's size in bytes.")
        }
        let metadata = try Self.metadata(headers["Upload-Metadata"])
        let field = metadata["field"]
        let target = try await uploads.target(formID: formID, field: field, languages: headers.acceptedLanguages)
        let type = metadata["filetype"] ?? "application/octet-stream"
        guard MediaSniffer.isWellFormed(type) else {
            throw APIProblem(.invalidParameter, "The filetype metadata must be a media type such as image/jpeg.")
        }
        try uploads.check(target, field: field ?? "", declaredType: type, length: length)
        try uploads.limits.checkFreeSpace(needed: length)
        // Each unfinished upload holds a record and a staged file until it expires: a client may hold
        // as many as it may send at once.
        let unfinished = try await uploads.store.incompleteUploadCount(
            clientAddress: client, since: Date().addingTimeInterval(-uploads.unboundLifetime))
        guard unfinished < uploads.limits.settings.maxInProgressPerClient else {
            throw APIProblem(.tooManyUploads,
                             "This client has \(unfinished) unfinished uploads; finish or delete one before starting another.",
                             headers: [("Retry-After", "60"), Self.resumable])
        }
        let record = uploads.newRecord(target, field: field ?? "", filename: metadata["filename"], contentType: type,
                                       declaredSize: length, client: client)
        guard FileManager.default.createFile(atPath: stagingPath(record.id), contents: nil) else {
            throw uploads.storageProblem(CocoaError(.fileWriteUnknown))
        }
        do {
            try await uploads.store.createUpload(record)
        } catch {
            try? FileManager.default.removeItem(atPath: stagingPath(record.id))
            throw error
        }
        if length == 0 { return (try await finish(record, target: target, sha256: SubmissionService.hash([])), 0) }
        return (record, length)
    }

    // MARK: Core

    /// The upload `id` of form `formID`, or 404; 410 once an unfinished one has expired.
    func upload(formID: String, id: String) async throws -> UploadRecord {
        guard id.hasPrefix("upl_"), let record = try await uploads.store.upload(id: id), record.formID == formID else {
            throw APIProblem.notFound("There is no upload '\(id)' of form '\(formID)'.")
        }
        if !record.isComplete, record.expiresAt < Date() {
            throw APIProblem(.uploadExpired, "Upload '\(id)' expired unfinished; start a new one.", headers: [Self.resumable])
        }
        // Staged on another node (or its disk was lost): this node cannot resume it. One whose bytes
        // all arrived may already be in storage, its record not yet completed (see `completeStalled`).
        if !record.isComplete, !isStalled(record), !FileManager.default.fileExists(atPath: stagingPath(id)) {
            throw APIProblem.notFound("Upload '\(id)' cannot be resumed here; start the file again.")
        }
        return record
    }

    /// Whether every byte of an unfinished upload arrived but finishing it failed (storage or the
    /// database did not answer): its HEAD and PATCH try again.
    private func isStalled(_ record: UploadRecord) -> Bool {
        !record.isComplete && record.declaredSize == record.received
    }

    /// `HEAD …/tus/{uid}`: the upload as it stands, finished first if all its bytes are in.
    func status(formID: String, id: String) async throws -> UploadRecord {
        let record = try await upload(formID: formID, id: id)
        guard isStalled(record), lock(id) else { return record }
        defer { unlock(id) }
        return try await completeStalled(record)
    }

    private func lock(_ id: String) -> Bool {
        busy.withLock { $0.insert(id).inserted }
    }

    private func unlock(_ id: String) {
        _ = busy.withLock { $0.remove(id) }
    }

    private static func busyProblem(_ id: String) -> APIProblem {
        APIProblem(.uploadBusy, "Upload '\(id)' is receiving bytes on another request; wait for it to end.", headers: [resumable])
    }

    /// `PATCH …/tus/{uid}`: appends the body at `Upload-Offset`; returns the new offset. The upload
    /// is held from before its offset is read to after the new one is recorded, so two PATCHes of
    /// one upload never interleave.
    func append(formID: String, id: String, headers: HTTPHeaders, body: RequestBody, client: String) async throws -> (UploadRecord, Int) {
        try Self.checkVersion(headers)
        guard let type = headers["Content-Type"], MediaSniffer.essence(type) == "application/offset+octet-stream" else {
            throw APIProblem.unsupportedMediaType("A PATCH of a tus upload is sent as application/offset+octet-stream.")
        }
        guard let raw = headers["Upload-Offset"], let offset = Int(raw), offset >= 0 else {
            throw APIProblem(.invalidParameter, "Upload-Offset must be the byte offset the body starts at.")
        }
        guard lock(id) else { throw Self.busyProblem(id) }
        defer { unlock(id) }
        var record = try await upload(formID: formID, id: id)
        if isStalled(record) { record = try await completeStalled(record) }
        guard !record.isComplete, offset == record.received, let length = record.declaredSize else {
            throw APIProblem(.uploadOffsetMismatch,
                             "Upload '\(id)' is at offset \(record.received), not \(offset); ask with HEAD and resume from there.",
                             headers: [Self.resumable])
        }
        let target = try await uploads.target(formID: formID, field: record.field, languages: headers.acceptedLanguages)
        try uploads.limits.checkFreeSpace(needed: length - offset)
        let slot = try uploads.limits.begin(client)
        defer { slot.end() }

        let file: StagedFile
        do {
            file = try StagedFile(path: stagingPath(id), offset: offset)
        } catch StagedFileError.shorterThanRecorded {
            // The staged bytes are gone (a disk replaced, a file removed by hand): nothing to resume.
            await terminate(record)
            throw APIProblem.notFound("Upload '\(id)' lost its staged bytes; start the file again.")
        }
        defer { file.close() }
        var (hashed, hasher) = hashers.withLock { $0[id] } ?? (0, SHA256())
        if hashed != offset { hasher = try await Offload.run { try file.hash(upTo: offset) } }
        var received = offset
        var durable = offset
        var failure: (any Error)?
        do {
            while let part = try await body.next() {
                guard received + part.count <= length else {
                    throw APIProblem(.fileTooLarge, "The bytes go past the Upload-Length of \(length).", headers: [Self.resumable])
                }
                try file.write(part)
                hasher.update(data: part)
                received += part.count
                try await uploads.limits.pace(client, bytes: part.count)
                if received - durable >= Self.progressBytes {
                    try uploads.limits.checkFreeSpace()
                    try await makeDurable(id, file: file, from: durable, to: received)
                    durable = received
                }
            }
        } catch {
            failure = error
        }
        // What arrived before a cut counts: the client resumes from it.
        if received > durable {
            try await makeDurable(id, file: file, from: durable, to: received)
        }
        hashers.withLock { $0[id] = (received, hasher) }
        if let failure { throw failure }
        record.received = received
        guard received == length else { return (record, received) }
        hashers.withLock { $0[id] = nil }
        return (try await finish(record, target: target, sha256: Hex.encode(hasher.finalize())), received)
    }

    /// Syncs the staged bytes, then moves the stored offset: never past what is on disk.
    private func makeDurable(_ id: String, file: StagedFile, from: Int, to: Int) async throws {
        try await Offload.blocking { try file.sync() }
        guard try await uploads.store.recordProgress(id: id, from: from, to: to) else {
            throw APIProblem(.uploadOffsetMismatch, "Upload '\(id)' moved on another request.", headers: [Self.resumable])
        }
    }

    /// Checks the finished file's type, moves it to storage and completes its record. A failure
    /// after the type check leaves the upload stalled, finished again by its next HEAD or PATCH.
    private func finish(_ record: UploadRecord, target: UploadService.Target, sha256: String) async throws -> UploadRecord {
        let path = stagingPath(record.id)
        let prefix = try StagedFile.prefix(path: path, count: MediaSniffer.prefixLength)
        var completed = record
        completed.contentType = try await checkedType(record, target: target, prefix: prefix)
        do {
            try await Offload.offLoop { [storage = uploads.storage, type = completed.contentType] in
                try await storage.store(key: record.storageKey, contentType: type, fromFile: path)
            }
        } catch {
            throw uploads.storageProblem(error)
        }
        try? FileManager.default.removeItem(atPath: path)
        try await uploads.store.completeUpload(id: record.id, size: record.received, sha256: sha256, contentType: completed.contentType)
        completed.sha256 = sha256
        completed.isComplete = true
        return completed
    }

    /// The type to keep for a finished upload whose first bytes are `prefix`; an upload whose bytes
    /// contradict its type is deleted, and the refusal thrown.
    private func checkedType(_ record: UploadRecord, target: UploadService.Target, prefix: [UInt8]) async throws -> String {
        var receiver = Receiver(target: target, declaredType: record.contentType, field: record.field)
        do {
            try receiver.take(prefix)
            return try receiver.finish()
        } catch {
            await terminate(record)
            throw error
        }
    }

    /// Finishes a stalled upload: from its staged file, or, when the file already went to storage
    /// and only the record was not completed, from the stored object.
    private func completeStalled(_ record: UploadRecord) async throws -> UploadRecord {
        // Finished on a later request (a HEAD, a PATCH), which may ask for no language: the form's.
        let target = try await uploads.target(formID: record.formID, field: record.field, languages: LanguagePriorityList())
        let path = stagingPath(record.id)
        if FileManager.default.fileExists(atPath: path) {
            let (hashed, cached) = hashers.withLock { $0[record.id] } ?? (0, SHA256())
            let hasher = hashed == record.received
                ? cached : try await Offload.run { try StagedFile.hash(path: path, upTo: record.received) }
            hashers.withLock { $0[record.id] = nil }
            return try await finish(record, target: target, sha256: Hex.encode(hasher.finalize()))
        }
        guard try await uploads.storage.size(key: record.storageKey) == record.received else {
            await terminate(record)
            throw APIProblem.notFound("Upload '\(record.id)' lost its bytes; start the file again.")
        }
        let read = StoredRead()
        try await uploads.storage.read(key: record.storageKey, chunkSize: 1 << 20) { read.take($0) }
        let (prefix, digest) = read.result()
        var completed = record
        completed.contentType = try await checkedType(record, target: target, prefix: prefix)
        try await uploads.store.completeUpload(id: record.id, size: record.received, sha256: digest, contentType: completed.contentType)
        completed.sha256 = digest
        completed.isComplete = true
        return completed
    }

    // MARK: Termination

    /// `DELETE …/tus/{uid}`: forgets an upload no submission holds.
    func terminate(formID: String, id: String, headers: HTTPHeaders) async throws {
        try Self.checkVersion(headers)
        guard lock(id) else { throw Self.busyProblem(id) }
        defer { unlock(id) }
        guard id.hasPrefix("upl_"), let record = try await uploads.store.upload(id: id), record.formID == formID else {
            throw APIProblem.notFound("There is no upload '\(id)' of form '\(formID)'.")
        }
        guard record.submissionID == nil else {
            throw APIProblem(.conflict, "Upload '\(id)' belongs to a submission and is kept with it.", headers: [Self.resumable])
        }
        await terminate(record)
    }

    /// Deletes an upload's staged file, stored object and record (the sweeper's way too); returns
    /// whether the record went.
    @discardableResult
    func terminate(_ record: UploadRecord) async -> Bool {
        hashers.withLock { $0[record.id] = nil }
        try? FileManager.default.removeItem(atPath: stagingPath(record.id))
        return await uploads.forget(record)
    }

    /// Staged files older than `age` whose upload is gone or finished: left by a crash, by another
    /// node's sweeper (which deleted the record of an upload staged here), or by a failed delete.
    func removeOrphanedStagedFiles(olderThan age: TimeInterval) async throws -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? []
        var removed = 0
        for name in names where name.hasPrefix("upl_") {
            let path = stagingPath(name)
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                  Date().timeIntervalSince(modified) > age, !busy.withLock({ $0.contains(name) }) else { continue }
            let record = try await uploads.store.upload(id: name)
            if record == nil || record?.isComplete == true {
                try? FileManager.default.removeItem(atPath: path)
                removed += 1
            }
        }
        return removed
    }

    // MARK: Headers

    static func checkVersion(_ headers: HTTPHeaders) throws {
        guard headers["Tus-Resumable"] == version else {
            throw APIProblem(.tusVersionUnsupported, "This server speaks tus \(version): send Tus-Resumable: \(version).",
                             headers: [resumable, ("Tus-Version", version)])
        }
    }

    /// `Upload-Metadata`: comma-separated `key base64value` pairs (the value may be absent).
    static func metadata(_ header: String?) throws -> [String: String] {
        guard let header, !header.isEmpty else { return [:] }
        var result: [String: String] = [:]
        for pair in header.split(separator: ",") {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            guard let key = parts.first, !key.isEmpty, result[String(key)] == nil else {
                throw APIProblem(.invalidParameter, "Upload-Metadata must be comma-separated 'key base64value' pairs with distinct keys.")
            }
            if parts.count == 2 {
                guard let data = Data(base64Encoded: String(parts[1])), let value = String(data: data, encoding: .utf8) else {
                    throw APIProblem(.invalidParameter, "The Upload-Metadata value of '\(key)' is not base64 of UTF-8 text.")
                }
                result[String(key)] = value
            } else {
                result[String(key)] = ""
            }
        }
        return result
    }
}

/// The staged bytes of one unfinished tus upload, open for appending at a known offset.
final class StagedFile: @unchecked Sendable {
    private let fd: Int32
    private let closed = Mutex(false)

    /// Opens the staged file and cuts it to `offset`: bytes past the recorded offset (written but
    /// not recorded before a crash) would otherwise sit between the old and the resumed bytes. A file
    /// shorter than the offset lost bytes that were recorded: it is refused, never padded.
    init(path: String, offset: Int) throws {
        fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StagedFileError.failed(operation: "open", code: errno) }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw StagedFileError.failed(operation: "stat", code: code)
        }
        guard Int(status.st_size) >= offset else {
            Glibc.close(fd)
            throw StagedFileError.shorterThanRecorded
        }
        guard ftruncate(fd, off_t(offset)) == 0, lseek(fd, off_t(offset), SEEK_SET) >= 0 else {
            let code = errno
            Glibc.close(fd)
            throw StagedFileError.failed(operation: "truncate", code: code)
        }
        self.path = path
    }

    private let path: String

    func write(_ bytes: [UInt8]) throws {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StagedFileError.failed(operation: "write", code: errno)
            }
            written += count
        }
    }

    func sync() throws {
        guard fsync(fd) == 0 else { throw StagedFileError.failed(operation: "fsync", code: errno) }
    }

    func close() {
        let wasClosed = closed.withLock { closed in defer { closed = true }; return closed }
        if !wasClosed { Glibc.close(fd) }
    }

    deinit { close() }

    /// The hash of the file's first `offset` bytes, read back after a restart.
    func hash(upTo offset: Int) throws -> SHA256 {
        try Self.hash(path: path, upTo: offset)
    }

    /// The hash of the first `offset` bytes of the file at `path`.
    static func hash(path: String, upTo offset: Int) throws -> SHA256 {
        var hasher = SHA256()
        let reader = open(path, O_RDONLY | O_CLOEXEC)
        guard reader >= 0 else { throw StagedFileError.failed(operation: "open", code: errno) }
        defer { Glibc.close(reader) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var left = offset
        while left > 0 {
            let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress!, min(left, $0.count)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw StagedFileError.failed(operation: "read", code: count < 0 ? errno : EIO) }
            hasher.update(data: buffer[0..<count])
            left -= count
        }
        return hasher
    }

    /// The first `count` bytes of the file at `path`.
    static func prefix(path: String, count: Int) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw StagedFileError.failed(operation: "open", code: ENOENT) }
        defer { try? handle.close() }
        return [UInt8](try handle.read(upToCount: count) ?? Data())
    }
}

/// A staged upload's file could not be used.
enum StagedFileError: Error, CustomStringConvertible {
    case failed(operation: String, code: Int32)
    /// The file holds fewer bytes than the upload's recorded offset.
    case shorterThanRecorded

    var description: String {
        switch self {
        case .failed(let operation, let code): "\(operation) of a staged upload failed: \(String(cString: strerror(code)))"
        case .shorterThanRecorded: "a staged upload holds fewer bytes than its recorded offset"
        }
    }
}

/// The first bytes and the SHA-256 of an object read back from storage, in the order its parts come.
final class StoredRead: Sendable {
    private let state = Mutex((prefix: [UInt8](), hasher: SHA256()))

    func take(_ part: [UInt8]) {
        state.withLock { state in
            if state.prefix.count < MediaSniffer.prefixLength { state.prefix += part.prefix(MediaSniffer.prefixLength - state.prefix.count) }
            state.hasher.update(data: part)
        }
    }

    func result() -> (prefix: [UInt8], sha256: String) {
        state.withLock { ($0.prefix, Hex.encode($0.hasher.finalize())) }
    }
}
