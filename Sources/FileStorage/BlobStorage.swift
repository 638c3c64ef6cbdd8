/// Where the bytes of uploaded files live: a local directory or an S3-compatible bucket.
///
/// Keys are the caller's own identifiers (`upl_…`); both storages refuse keys that could leave their
/// place (see ``BlobKey``).
public protocol BlobStorage: Sendable {
    /// Starts writing a new object; bytes are appended in order, then `finish` makes it visible under `key` atomically.
    func makeWriter(key: String, contentType: String) async throws -> any BlobWriter
    /// Stores a complete local file as `key` (for tus uploads staged on local disk); local storage
    /// renames it when it can (so `path` may be gone afterwards) or copies it, S3 uploads it
    /// (multipart when large) and leaves it in place.
    func store(key: String, contentType: String, fromFile path: String) async throws
    /// Streams the object's bytes to `body` in chunks of at most `chunkSize`, holding one chunk at a time.
    func read(key: String, chunkSize: Int, _ body: @Sendable ([UInt8]) async throws -> Void) async throws
    /// The object's size, or nil when there is none.
    func size(key: String) async throws -> Int?
    /// Deletes the object; deleting a missing object is not an error.
    func delete(key: String) async throws
    /// Whether the storage answers (for /readyz).
    func checkReady() async throws
}

/// One object being written; its calls are made one after another, never concurrently.
public protocol BlobWriter: Sendable {
    /// Appends bytes to the object.
    func append(_ bytes: [UInt8]) async throws
    /// Makes the object visible; returns its size.
    func finish() async throws -> Int
    /// Gives up: nothing remains (S3: AbortMultipartUpload).
    func abort() async
}
