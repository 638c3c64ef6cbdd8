// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Formhouse",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "FormStore", targets: ["FormStore"]),
        .executable(name: "StoreBenchmark", targets: ["StoreBenchmark"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "FormStore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "FormStoreTests",
            dependencies: [
                "FormStore",
                "StoreCrashWriter",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        .executableTarget(
            name: "StoreCrashWriter",
            dependencies: ["FormStore"],
            path: "Tests/StoreCrashWriter"
        ),
        .executableTarget(
            name: "StoreBenchmark",
            dependencies: ["FormStore"],
            path: "Benchmarks/store-bench"
        ),
    ]
)
