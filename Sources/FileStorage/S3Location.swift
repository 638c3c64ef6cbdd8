import Foundation

/// A bucket and key prefix on an S3-compatible service, and the credentials to reach it.
///
/// Objects are addressed path-style (`endpoint/bucket/key`), which AWS, MinIO and moto all accept.
/// Neither `description` nor a mirror of the value shows the secret.
public struct S3Location: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public let bucket: String
    /// Prepended to every key: empty, or ending with `/`.
    public let prefix: String
    /// The service's base URL, without a trailing slash: `https://s3.<region>.amazonaws.com` unless given.
    public let endpoint: URL
    public let region: String
    public let accessKeyId: String
    public let secretAccessKey: String

    /// Reads `url` (`s3://bucket` or `s3://bucket/prefix`); `endpoint` is the service's http(s) base
    /// URL, AWS's regional endpoint when nil.
    public init(url: String, endpoint: String?, region: String, accessKeyId: String, secretAccessKey: String) throws {
        guard url.hasPrefix("s3://") else {
            throw BlobStorageError.invalidLocation("the storage URL must start with s3://, not \(String(reflecting: url)).")
        }
        let rest = url.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        try Self.checkBucket(bucket)
        var prefix = rest.dropFirst(bucket.count).drop { $0 == "/" }
        while prefix.hasSuffix("/") { prefix.removeLast() }
        if !prefix.isEmpty {
            do {
                _ = try BlobKey.components(of: String(prefix))
            } catch {
                throw BlobStorageError.invalidLocation("the key prefix \(String(reflecting: String(prefix))) is refused: \(error).")
            }
        }
        guard !region.isEmpty, region.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) else {
            throw BlobStorageError.invalidLocation("the region must be lowercase letters, digits and hyphens, like eu-west-1.")
        }
        guard !accessKeyId.isEmpty, !secretAccessKey.isEmpty else {
            throw BlobStorageError.invalidLocation("the access key id and the secret access key are both required.")
        }
        self.bucket = bucket
        self.prefix = prefix.isEmpty ? "" : prefix + "/"
        self.endpoint = try Self.parseEndpoint(endpoint ?? "https://s3.\(region).amazonaws.com")
        self.region = region
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
    }

    public var description: String {
        "s3://\(bucket)/\(prefix) at \(endpoint.absoluteString) (\(region), access key \(accessKeyId))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: ["bucket": bucket, "prefix": prefix, "endpoint": endpoint, "region": region, "accessKeyId": accessKeyId])
    }

    private static func checkBucket(_ bucket: String) throws {
        let allowed = bucket.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D }
        guard (3...63).contains(bucket.utf8.count), allowed, bucket.first != ".", bucket.first != "-", bucket.last != ".", bucket.last != "-" else {
            throw BlobStorageError.invalidLocation(
                "\(String(reflecting: bucket)) is not a bucket name (3 to 63 lowercase letters, digits, dots and hyphens).")
        }
    }

    private static func parseEndpoint(_ text: String) throws -> URL {
        var trimmed = text
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
              components.path.isEmpty, components.query == nil, components.fragment == nil, let url = components.url else {
            throw BlobStorageError.invalidLocation("the endpoint must be an http or https URL with a host and no path, like https://minio.example:9000.")
        }
        guard components.user == nil, components.password == nil else {
            throw BlobStorageError.invalidLocation("the endpoint may not carry a user or password; give the access key and secret instead.")
        }
        return url
    }
}
