import FormEngine
import Foundation
import FormStore
import PostgresFormStore
import Logging
import Webhooks

extension AppConfiguration {
    /// Every setting, in the order they are read, checked and documented; a bound that names another
    /// setting names one declared before it. The defaults are the properties' initial values.
    public static let settings: [Setting] = [
        .path("host", \.host, flag: "host", "Address to listen on."),
        .wholeNumber("port", \.port, flag: "port", range: 0...65_535, "Port to listen on; 0 picks a free one."),
        .path("dataDirectory", \.dataDirectory, flag: "data-dir",
              "Directory for the SQLite database and the secret key file; one server per directory."),
        .path("formsDirectory", \.formsDirectory, flag: "forms-dir",
              "Directory of sample forms; at every start, each *.json whose form id never existed (not even deleted) is stored."),
        .path("publicDirectory", \.publicDirectory, flag: "public-dir", "Directory served at /."),
        .tokens("adminTokens", \.adminTokens,
                "Bearer tokens of the admin API, with their roles and forms (comma-separated owner tokens in the environment); none closes the admin API."),
        .strings("corsOrigins", \.corsOrigins, flag: "cors-origins",
                 "Origins allowed to call the API from a browser (comma-separated in the environment and the flag)."),
        .wholeNumber("eventLoops", \.eventLoops, flag: "event-loops", range: 0...256,
                     "Event loop threads; 0 means one per core (in a container, set it to the CPUs it may use)."),
        .wholeNumber("maxBodyBytes", \.maxBodyBytes, flag: "max-body-bytes", range: 1_024...(64 << 20), unit: .bytes,
                     "Largest request body accepted."),
        .wholeNumber("maxPendingBodyBytes", \.maxPendingBodyBytes, range: 1_024...(1 << 40), unit: .bytes,
                     atLeast: SettingFloor(name: "maxBodyBytes") { Double($0.maxBodyBytes) },
                     "Bytes all bodies still arriving may hold together; past it a new one gets 503."),
        .wholeNumber("maxQueuedOutputBytes", \.maxQueuedOutputBytes, range: (1 << 20)...(1 << 40), unit: .bytes,
                     "Bytes all answers not yet read by their clients may hold together; past it, stalled ones close."),
        // Above the server's connections in all it would mean nothing.
        .wholeNumber("maxConnectionsPerAddress", \.maxConnectionsPerAddress, range: 1...serverDefaults.maxConnections,
                     "Open connections one client address may have (raise it behind a proxy, where all share one)."),
        .wholeNumber("maxValueLength", \.maxValueLength, range: 1...(64 << 20),
                     "Longest value, in characters, a submission may hold."),
        .wholeNumber("rateLimit.burst", \.rateLimitBurst, flag: "rate-limit-burst", range: 1...1_000_000_000,
                     "Submissions a client may send at once."),
        .number("rateLimit.perSecond", \.rateLimitPerSecond, flag: "rate-limit-per-second", range: 0.001...1_000_000_000,
                "Submissions per second a client is refilled."),
        .choice("synchronous", \.synchronous, SQLiteStoreConfiguration.Synchronous.allCases.map { ($0.rawValue, $0) },
                "FULL keeps every acknowledged submission and uploaded file through power loss; NORMAL (no syncs) only for benchmarks."),
        .wholeNumber("store.maxGroupSize", \.storeMaxGroupSize, range: 1...100_000,
                     "Submissions committed together at most (1 turns group commit off: a baseline for benchmarks)."),
        .wholeNumber("webhooks.concurrency", \.webhookConcurrency, range: 1...10_000, "Webhook deliveries in flight at most."),
        // libcurl reads a timeout of 0 as none.
        .number("webhooks.timeoutSeconds", \.webhookTimeoutSeconds, range: 0.001...3_600, unit: .seconds,
                "How long one delivery attempt may take, connecting included."),
        // Nothing renews a lease while a send is in flight: a shorter lease lets another claim send the
        // same delivery again while the first is still waiting for its answer.
        .number("webhooks.leaseSeconds", \.webhookLeaseSeconds, range: 1...86_400, unit: .seconds,
                atLeast: SettingFloor(name: "webhooks.timeoutSeconds + 1") { $0.webhookTimeoutSeconds + 1 },
                "How long a claimed delivery stays leased to this process; after a crash it is retried then."),
        .numbers("webhooks.retrySchedule", \.webhookRetrySchedule, count: 1...100, each: 0...2_592_000, unit: .seconds,
                 "Seconds to wait before each retry of a failed delivery; after the last, the delivery is dead."),
        .boolean("webhooks.allowPrivate", \.webhookAllowPrivate, flag: "allow-private-webhooks",
                 "Allow http and private/loopback webhook destinations (tests, intranets)."),
        .secret("secretKey", \.secretKey, bounds: "the base64 of exactly 32 bytes",
                problem: { (try? SecretBox(base64Key: $0)) == nil ? "" : nil },
                "Key that encrypts webhook secrets and sensitive input values at rest and seals paging cursors; without it, secret.key in the data directory (required with database.url)."),
        // The flag refuses a URL with a password (`formhouse serve` checks it): a command line is readable by every user.
        .secret("database.url", \.databaseURL, flag: "database-url",
                bounds: "a postgres:// or postgresql:// URL",
                problem: { url in
                    do throws(PostgresSettingsError) { _ = try PostgresConnectionSettings(url: url); return nil } catch { return error.description }
                },
                "PostgreSQL database shared by every node (postgres://user:password@host:port/db?sslmode=require); none keeps the SQLite database in the data directory."),
        .wholeNumber("database.maxConnections", \.databaseMaxConnections, range: 1...1_000,
                     "Connections to PostgreSQL this node may open at most (its pool)."),
        .number("database.statementTimeoutSeconds", \.databaseStatementTimeoutSeconds, range: 0.1...3_600, unit: .seconds,
                "How long one PostgreSQL statement may run before the server cancels it."),
        .optionalText("publicUrl", \.publicURL, bounds: "an http:// or https:// URL",
                      problem: { value in
                          guard let url = URL(string: value), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else { return "" }
                          return nil
                      },
                      "Where clients and webhook receivers reach this server, for the signed file links in webhook payloads; none uses http://host:port."),
        .optionalText("storage.url", \.storageURL, bounds: "a file:// or s3://bucket/prefix URL",
                      problem: { $0.hasPrefix("file:///") || $0.hasPrefix("s3://") ? nil : "" },
                      "Where uploaded files are kept; none keeps them in files/ of the data directory."),
        .optionalText("storage.endpoint", \.storageEndpoint, bounds: "an http:// or https:// URL",
                      problem: { $0.hasPrefix("https://") || $0.hasPrefix("http://") ? nil : "" },
                      "The S3 service's URL (MinIO, Ceph, R2, …); none is AWS's endpoint of storage.region."),
        .path("storage.region", \.storageRegion, "The S3 region requests are signed for."),
        .optionalText("storage.accessKeyId", \.storageAccessKeyID, isSecret: true, bounds: "", problem: { _ in nil },
                      "The S3 access key id."),
        .secret("storage.secretAccessKey", \.storageSecretAccessKey, bounds: "", problem: { _ in nil },
                "The S3 secret access key."),
        .secret("metrics.token", \.metricsToken, bounds: "at least 16 characters",
                problem: { $0.count >= 16 ? nil : "" },
                "Bearer token GET /metrics requires; none leaves it open to whoever reaches the port."),
        .wholeNumber("uploads.maxFileBytes", \.uploadMaxFileBytes, range: 1_024...(1 << 40), unit: .bytes,
                     "Largest file any input may take, whatever its maxSize says."),
        .wholeNumber("uploads.maxInProgress", \.uploadMaxInProgress, range: 1...100_000,
                     "Uploads this node receives at once; past it a new one gets 429."),
        .wholeNumber("uploads.maxInProgressPerClient", \.uploadMaxInProgressPerClient, range: 1...100_000,
                     "Uploads one client address may send at once, and unfinished tus uploads it may hold; past it a new one gets 429."),
        .wholeNumber("uploads.bytesPerSecondPerClient", \.uploadBytesPerSecondPerClient, range: 1_024...(1 << 40), unit: .bytes,
                     "Upload bytes per second one client address is read at, at most."),
        .wholeNumber("uploads.minFreeBytes", \.uploadMinFreeBytes, range: 0...(1 << 40), unit: .bytes,
                     "Free space the data directory's disk keeps; below it uploads get 507."),
        .number("uploads.keepUnboundHours", \.uploadKeepUnboundHours, range: 0.0001...8_760, unit: .plain,
                "Hours an upload waits for a submission to take it before it is deleted."),
        .number("files.linkDays", \.fileLinkDays, range: 0.0001...365,
                "Days the signed file links in webhook payloads stay valid."),
        .wholeNumber("retention.days", \.retentionDays, range: 0...FormDefinition.maximumRetentionDays,
                     "Days submissions are kept when their form sets no retentionDays; 0 keeps them until deleted."),
        .number("drafts.ttlDays", \.draftTTLDays, range: 0.0001...3_650,
                "Days a draft is kept after its last change; then it is deleted, with its uploads no submission took."),
        .wholeNumber("drafts.maxPerClientPerHour", \.draftMaxPerClientPerHour, range: 1...1_000_000,
                     "Drafts one client address may start in a clock hour (UTC); past it a new one gets 429."),
        .wholeNumber("drafts.maxRevisions", \.draftMaxRevisions, range: 1...1_000_000,
                     "Changes one draft may take after it is created; past it a change gets 409 and the draft can still be submitted."),
        .choice("logLevel", \.logLevel, flag: "log-level", Logger.Level.allCases.map { ($0.rawValue, $0) },
                "Least severe log messages written."),
    ]
}
