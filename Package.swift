// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Formhouse",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .target(name: "CEpoll"),
        .target(
            name: "HTTPServer",
            dependencies: [
                "CEpoll",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "http-bench-server",
            dependencies: [
                "HTTPServer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Benchmarks/http-bench-server"
        ),
        .testTarget(
            name: "HTTPServerTests",
            dependencies: ["HTTPServer"]
        ),
    ]
)
