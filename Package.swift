// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Formhouse",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "Webhooks", targets: ["Webhooks"]),
        .executable(name: "WebhookBenchmark", targets: ["WebhookBenchmark"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(name: "CCurlShims", dependencies: ["CCurl"]),
        .target(
            name: "Webhooks",
            dependencies: [
                "CCurl",
                "CCurlShims",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(name: "WebhookReceiver"),
        .executableTarget(
            name: "WebhookBenchmark",
            dependencies: ["Webhooks", "WebhookReceiver", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "WebhooksTests",
            dependencies: [
                "Webhooks",
                "WebhookReceiver",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ]
)
