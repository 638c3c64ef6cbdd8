/// One HTTP request of the S3 client: everything it sends, held in memory (at most one part).
struct HTTPRequest: Sendable {
    var method: String
    var url: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// The most response-body bytes accepted; a longer body fails the transfer.
    var responseLimit: Int
}

/// The answer to an `HTTPRequest`.
struct HTTPResponse: Sendable {
    var status: Int
    /// The `ETag` header, which UploadPart's answer carries.
    var etag: String?
    /// The `Content-Length` header, which HeadObject's answer carries.
    var contentLength: Int?
    var body: [UInt8]

    var isSuccess: Bool { (200..<300).contains(status) }
}
