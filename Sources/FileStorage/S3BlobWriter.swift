/// Buffers appended bytes up to one part (never more): the object goes as one PutObject when it
/// never grows past `partSize`, and as a multipart upload, part by part, once it does.
actor S3BlobWriter: BlobWriter {
    private let storage: S3BlobStorage
    private let key: String
    private let contentType: String
    private var buffer: [UInt8] = []
    private var size = 0
    private var uploadID: String?
    private var etags: [String] = []
    private var closed = false

    init(storage: S3BlobStorage, key: String, contentType: String) {
        self.storage = storage
        self.key = key
        self.contentType = contentType
    }

    func append(_ bytes: [UInt8]) async throws {
        guard !closed else { throw BlobStorageError.writerClosed }
        size += bytes.count
        var rest = bytes[...]
        while !rest.isEmpty {
            // A full buffer goes out only once more bytes come: an object of exactly `partSize`
            // bytes is still one PutObject.
            if buffer.count == storage.partSize {
                try await upload(buffer)
                buffer = []
            }
            let taken = rest.prefix(storage.partSize - buffer.count)
            buffer += taken
            rest = rest.dropFirst(taken.count)
        }
    }

    func finish() async throws -> Int {
        guard !closed else { throw BlobStorageError.writerClosed }
        closed = true
        if let uploadID {
            try await upload(buffer)
            try await storage.completeMultipartUpload(key: key, uploadID: uploadID, etags: etags)
            self.uploadID = nil
        } else {
            try await storage.putObject(key: key, contentType: contentType, body: buffer)
        }
        buffer = []
        return size
    }

    func abort() async {
        closed = true
        buffer = []
        if let uploadID {
            self.uploadID = nil
            await storage.abortMultipartUpload(key: key, uploadID: uploadID)
        }
    }

    private func upload(_ part: [UInt8]) async throws {
        let id: String
        if let uploadID {
            id = uploadID
        } else {
            id = try await storage.createMultipartUpload(key: key, contentType: contentType)
            uploadID = id
        }
        etags.append(try await storage.uploadPart(key: key, uploadID: id, number: etags.count + 1, body: part))
    }
}
