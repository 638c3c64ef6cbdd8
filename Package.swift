// swift-tools-version:6.1
import PackageDescription

// Async functions without isolation run on their caller's executor (SE-0461) instead of hopping to
// the generic one at every call: a request's handler stays on its event loop without paying a task
// executor check at each of the dozen async calls between the socket and the store.
let callerExecutor: [SwiftSetting] = [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]

// Products that several targets depend on, named once.
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let metrics = Target.Dependency.product(name: "Metrics", package: "swift-metrics")
let metricsTestKit = Target.Dependency.product(name: "MetricsTestKit", package: "swift-metrics")
let serviceLifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
let grdb = Target.Dependency.product(name: "GRDB", package: "GRDB.swift")
let grdbSQLite = Target.Dependency.product(name: "GRDBSQLite", package: "GRDB.swift")
let postgresNIO = Target.Dependency.product(name: "PostgresNIO", package: "postgres-nio")

let package = Package(
    name: "Formhouse",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        // The engine an iOS app can link too: Foundation only.
        .library(name: "FormEngine", targets: ["FormEngine", "FormRegex"]),
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "FormStore", targets: ["FormStore"]),
        .library(name: "Webhooks", targets: ["Webhooks"]),
        .executable(name: "formhouse", targets: ["formhouse"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Engine: Foundation only.
        .target(name: "FormRegex"),
        // The built-in error messages, one JSON file per language, compiled into the library: an app
        // or a server binary needs no resource bundle beside it.
        .target(
            name: "FormEngine", dependencies: ["FormRegex"],
            resources: [.embedInCode("Messages/en.json"), .embedInCode("Messages/pt-BR.json"), .embedInCode("Messages/es.json")]
        ),

        // HTTP server: sockets and epoll, nothing about forms.
        .target(name: "CEpoll"),
        .target(
            name: "HTTPServer",
            dependencies: ["CEpoll", logging, serviceLifecycle],
            swiftSettings: callerExecutor
        ),

        // Storage.
        .target(name: "CSQLiteTuning", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(
            name: "FormStore",
            dependencies: ["CSQLiteTuning", crypto, grdb, grdbSQLite, logging, metrics],
            swiftSettings: callerExecutor
        ),
        // The same store seam on PostgreSQL, for several nodes on one database (forms only so far), and
        // the copy of a SQLite database into it (which reads SQLite through GRDB).
        .target(
            name: "PostgresFormStore",
            dependencies: ["FormStore", grdb, postgresNIO, logging],
            swiftSettings: callerExecutor
        ),

        // Webhook delivery through libcurl.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "CCurlShims", dependencies: ["CCurl"]),
        .target(
            name: "Webhooks",
            dependencies: ["CCurl", "CCurlShims", crypto, logging, metrics, serviceLifecycle]
        ),
        .target(name: "WebhookReceiver"),

        // Uploaded files' bytes, on local disk or on an S3-compatible service through libcurl.
        .target(name: "CFileSync"),
        .target(name: "FileStorage", dependencies: ["CCurl", "CCurlShims", "CFileSync", crypto, logging], swiftSettings: callerExecutor),

        // The application and its command line.
        .target(
            name: "FormhouseApp",
            dependencies: [
                "FormEngine", "HTTPServer", "FormStore", "PostgresFormStore", "Webhooks", "FileStorage", crypto, logging, metrics,
                serviceLifecycle,
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: callerExecutor
        ),
        .executableTarget(
            name: "formhouse",
            dependencies: [
                "FormhouseApp", "FormEngine", "FormStore", "HTTPServer", "PostgresFormStore", logging,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // Benchmarks (release builds; figures and how to rerun them in Benchmarks/RESULTS.md).
        .executableTarget(name: "RegexBenchmark", dependencies: ["FormRegex"]),
        .executableTarget(name: "EngineBenchmark", dependencies: ["FormEngine"]),
        .executableTarget(
            name: "http-bench-server", dependencies: ["HTTPServer", logging], path: "Benchmarks/http-bench-server"
        ),
        .executableTarget(name: "StoreBenchmark", dependencies: ["FormStore"], path: "Benchmarks/store-bench"),
        .executableTarget(name: "StoreCrashWriter", dependencies: ["FormStore"], path: "Tests/StoreCrashWriter"),
        .executableTarget(name: "WebhookBenchmark", dependencies: ["Webhooks", "WebhookReceiver", logging]),

        // Tests.
        .target(name: "SeededRandom", path: "Tests/SeededRandom"),
        // Temporary directories and a throwaway PostgreSQL cluster for the store tests.
        .target(name: "StoreTestSupport", dependencies: ["PostgresFormStore"], path: "Tests/StoreTestSupport"),
        .testTarget(name: "FormRegexTests", dependencies: ["FormRegex", "SeededRandom"]),
        .testTarget(name: "FormEngineTests", dependencies: ["FormEngine", "FormRegex", "SeededRandom"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", serviceLifecycle]),
        .testTarget(
            name: "FormStoreTests",
            dependencies: ["FormStore", "StoreCrashWriter", "StoreTestSupport", grdb, grdbSQLite, metrics, metricsTestKit]
        ),
        .testTarget(name: "PostgresFormStoreTests", dependencies: ["PostgresFormStore", "FormStore", "StoreTestSupport"]),
        // `formhouse migrate` and the copy under it, from SQLite data directories into PostgreSQL.
        .testTarget(
            name: "StoreCopyTests",
            dependencies: ["PostgresFormStore", "FormStore", "FormhouseApp", "StoreTestSupport", "formhouse", grdb, logging]
        ),
        // The suites every store must pass, run against each store.
        .testTarget(name: "StoreConformanceTests", dependencies: ["FormStore", "PostgresFormStore", "StoreTestSupport"]),
        .testTarget(
            name: "WebhooksTests",
            dependencies: ["Webhooks", "WebhookReceiver", crypto, logging, metrics, metricsTestKit, serviceLifecycle]
        ),
        // A moto_server (S3) for the tests that need one.
        .target(name: "FileStorageTestSupport", dependencies: ["FileStorage"], path: "Tests/FileStorageTestSupport"),
        .testTarget(name: "FileStorageTests", dependencies: ["FileStorage", "FileStorageTestSupport", crypto, logging]),
        .testTarget(
            name: "FormhouseAppTests",
            dependencies: [
                "FormhouseApp", "FormStore", "formhouse", "Webhooks", "WebhookReceiver", "StoreTestSupport", "FileStorage",
                "FileStorageTestSupport", grdb,
            ]
        ),
    ]
)
