// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Formhouse",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        // The engine an iOS app can link too: Foundation only.
        .library(name: "FormEngine", targets: ["FormEngine", "FormRegex"]),
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
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
    ],
    targets: [
        .target(name: "FormRegex"),
        .target(name: "FormEngine", dependencies: ["FormRegex"]),
        .target(
            name: "HTTPServer",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "FormStore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "FormhouseApp",
            dependencies: [
                "FormEngine", "HTTPServer", "FormStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Configuration", package: "swift-configuration"),
            ]
        ),
        .executableTarget(
            name: "formhouse",
            dependencies: [
                "FormhouseApp", "FormEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "FormhouseAppTests", dependencies: ["FormhouseApp", "formhouse"]),
    ]
)
