import Crypto
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Objects in a bucket of an S3-compatible service, reached through libcurl.
///
/// Requests are signed by libcurl (`CURLOPT_AWS_SIGV4`) and carry the SHA-256 of their body, which
/// S3 checks. An object larger than `partSize` is sent as a multipart upload, holding one part in
/// memory at a time; reads are ranged GETs of one chunk each. At most 8 requests of one storage run
/// at once, each blocking a Dispatch worker thread; the others wait their turn. Multipart uploads
/// that a crashed process never finished or aborted stay in the bucket until its lifecycle rule
/// (AbortIncompleteMultipartUpload) removes them.
public final class S3BlobStorage: BlobStorage {
    /// The bucket, prefix and credentials.
    public let location: S3Location
    /// The size of each part of a multipart upload; also the largest object sent in one PutObject.
    public let partSize: Int
    let logger: Logger
    private let client: CurlEasyClient

    /// S3 refuses parts below 5 MiB (but the last).
    public static let minimumPartSize = 5 * 1024 * 1024

    /// Stores objects at `location`; `partSize` is at least ``minimumPartSize``.
    public init(location: S3Location, partSize: Int = 8 * 1024 * 1024, logger: Logger) {
        precondition(partSize >= Self.minimumPartSize, "S3 parts are at least 5 MiB")
        self.location = location
        self.partSize = partSize
        self.logger = logger
        client = CurlEasyClient(
            signing: "aws:amz:\(location.region):s3", username: location.accessKeyId, password: location.secretAccessKey,
            concurrency: 8)
    }

    public func makeWriter(key: String, contentType: String) async throws -> any BlobWriter {
        // Checked here too, so that a bad key fails before any byte is buffered.
        _ = try BlobKey.components(of: key)
        return S3BlobWriter(storage: self, key: key, contentType: contentType)
    }

    public func store(key: String, contentType: String, fromFile path: String) async throws {
        let writer = try await makeWriter(key: key, contentType: contentType)
        let descriptor = try LocalFiles.openFile(path, O_RDONLY)
        defer { close(descriptor) }
        try await writer.finish(copying: descriptor, path: path, chunkSize: partSize)
    }

    public func read(key: String, chunkSize: Int, _ body: @Sendable ([UInt8]) async throws -> Void) async throws {
        precondition(chunkSize > 0, "chunkSize must be positive")
        guard let size = try await size(key: key) else { throw BlobStorageError.notFound(key: key) }
        var offset = 0
        while offset < size {
            let length = min(chunkSize, size - offset)
            let response = try await send(
                "GET", key: key, headers: [("Range", "bytes=\(offset)-\(offset + length - 1)")],
                responseLimit: max(length, 64 * 1024))
            if response.status == 404 { throw BlobStorageError.notFound(key: key) }
            try Self.check(response)
            guard response.body.count == length else {
                throw BlobStorageError.malformedResponse("\(length) bytes were asked from offset \(offset), \(response.body.count) came.")
            }
            try await body(response.body)
            offset += length
        }
    }

    public func size(key: String) async throws -> Int? {
        let response = try await send("HEAD", key: key)
        if response.status == 404 { return nil }
        try Self.check(response)
        guard let length = response.contentLength else {
            throw BlobStorageError.malformedResponse("HeadObject's answer has no Content-Length.")
        }
        return length
    }

    public func delete(key: String) async throws {
        let response = try await send("DELETE", key: key)
        if response.status == 404 { return }
        try Self.check(response)
    }

    public func checkReady() async throws {
        try Self.check(try await send("HEAD", key: nil))
    }

    // MARK: Multipart uploads, for `S3BlobWriter`.

    func putObject(key: String, contentType: String, body: [UInt8]) async throws {
        try Self.check(try await send("PUT", key: key, headers: [("Content-Type", contentType)], body: body))
    }

    /// Starts a multipart upload; returns its upload id.
    func createMultipartUpload(key: String, contentType: String) async throws -> String {
        let response = try await send("POST", key: key, query: "uploads=", headers: [("Content-Type", contentType)])
        try Self.check(response)
        guard let id = S3XML.text(of: "UploadId", in: response.body), !id.isEmpty else {
            throw BlobStorageError.malformedResponse("CreateMultipartUpload's answer has no UploadId.")
        }
        return id
    }

    /// Sends part `number` (from 1); returns its ETag.
    func uploadPart(key: String, uploadID: String, number: Int, body: [UInt8]) async throws -> String {
        let query = "partNumber=\(number)&uploadId=\(Self.percentEncoded(uploadID, keepingSlashes: false))"
        let response = try await send("PUT", key: key, query: query, body: body)
        try Self.check(response)
        guard let etag = response.etag else { throw BlobStorageError.malformedResponse("UploadPart's answer has no ETag.") }
        return etag
    }

    func completeMultipartUpload(key: String, uploadID: String, etags: [String]) async throws {
        var document = "<CompleteMultipartUpload>"
        for (index, etag) in etags.enumerated() {
            document += "<Part><PartNumber>\(index + 1)</PartNumber><ETag>\(S3XML.escape(etag))</ETag></Part>"
        }
        document += "</CompleteMultipartUpload>"
        let response = try await send(
            "POST", key: key, query: "uploadId=\(Self.percentEncoded(uploadID, keepingSlashes: false))",
            headers: [("Content-Type", "application/xml")], body: Array(document.utf8))
        try Self.check(response)
        // The answer is 200 even when the completion failed after it began: the error is in the body.
        if S3XML.text(of: "Code", in: response.body) != nil {
            throw Self.refusal(response)
        }
    }

    func abortMultipartUpload(key: String, uploadID: String) async {
        do {
            let response = try await send("DELETE", key: key, query: "uploadId=\(Self.percentEncoded(uploadID, keepingSlashes: false))")
            if response.status != 404 { try Self.check(response) }
        } catch {
            logger.warning("Aborting a multipart upload failed; the bucket's lifecycle rule must remove its parts.", metadata: [
                "key": "\(key)", "error": "\(error)",
            ])
        }
    }

    // MARK: Requests.

    /// Sends a request for the object `key` (refused unless ``BlobKey`` accepts it), or for the bucket
    /// when nil. `query` must already be in
    /// SigV4's canonical form (names sorted, values percent-encoded, every `=` present), because
    /// libcurl signs it as written.
    private func send(
        _ method: String, key: String?, query: String = "", headers: [(String, String)] = [], body: [UInt8] = [],
        responseLimit: Int = 1024 * 1024
    ) async throws -> HTTPResponse {
        var url = location.endpoint.absoluteString + "/" + location.bucket
        if let key {
            _ = try BlobKey.components(of: key)
            url += "/" + Self.percentEncoded(location.prefix + key, keepingSlashes: true)
        }
        if !query.isEmpty { url += "?" + query }
        // S3 requires x-amz-content-sha256, which libcurl (7.88) signs when given but does not add.
        let digest = SHA256.hash(data: body).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        let request = HTTPRequest(
            method: method, url: url,
            headers: headers.map { (name: $0.0, value: $0.1) } + [(name: "x-amz-content-sha256", value: digest)],
            body: body, responseLimit: responseLimit)
        return try await client.send(request)
    }

    /// Throws `refused` unless the response is a success.
    private static func check(_ response: HTTPResponse) throws {
        if !response.isSuccess { throw refusal(response) }
    }

    private static func refusal(_ response: HTTPResponse) -> BlobStorageError {
        .refused(
            status: response.status,
            code: S3XML.text(of: "Code", in: response.body),
            message: S3XML.text(of: "Message", in: response.body))
    }

    /// RFC 3986 percent-encoding of all but the unreserved characters (and `/` in object paths), as SigV4 expects.
    static func percentEncoded(_ text: String, keepingSlashes: Bool) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                encoded.append(Character(Unicode.Scalar(byte)))
            case UInt8(ascii: "/") where keepingSlashes:
                encoded.append("/")
            default:
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return encoded
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
