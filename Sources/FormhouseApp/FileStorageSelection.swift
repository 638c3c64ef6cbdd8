import FileStorage
import Foundation
import Logging

/// The file storage the configuration names: an S3-compatible bucket for `s3://…`, otherwise a
/// directory (`file://…`, by default `files/` in the data directory).
enum FileStorageSelection {
    static func open(_ configuration: AppConfiguration, logger: Logger) throws -> any BlobStorage {
        guard let url = configuration.storageURL, url.hasPrefix("s3://") else {
            let directory = configuration.storageURL.flatMap { URL(string: $0)?.path }
                ?? URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("files").path
            do {
                // synchronous = NORMAL (benchmarks) skips the files' syncs as it skips the database's.
                return try LocalBlobStorage(directory: directory, durable: configuration.synchronous == .full)
            } catch {
                throw ConfigurationError(key: "storage.url", message: "the directory \(directory) cannot be used (\(error))")
            }
        }
        guard let accessKey = configuration.storageAccessKeyID, let secret = configuration.storageSecretAccessKey else {
            throw ConfigurationError(key: "storage.accessKeyId",
                                     message: "and storage.secretAccessKey are required with an s3:// storage.url")
        }
        let location: S3Location
        do {
            location = try S3Location(url: url, endpoint: configuration.storageEndpoint, region: configuration.storageRegion,
                                      accessKeyId: accessKey, secretAccessKey: secret)
        } catch {
            throw ConfigurationError(key: "storage.url", message: "\(error)")
        }
        logger.info("keeping files in S3", metadata: ["location": "\(location)"])
        return S3BlobStorage(location: location, logger: Logger(label: "formhouse.files"))
    }

    /// Where unfinished tus uploads are staged: on this node's disk, in the data directory.
    static func stagingDirectory(_ configuration: AppConfiguration) -> String {
        URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("uploads-staging").path
    }

    /// The base of signed file links: `publicUrl`, or this server's own address.
    static func publicURL(_ configuration: AppConfiguration, port: Int) -> String {
        if let url = configuration.publicURL { return url }
        let host = ["0.0.0.0", "::", ""].contains(configuration.host) ? "localhost" : configuration.host
        return "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}
