// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Formhouse",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        // The engine an iOS app can link too: Foundation only.
        .library(name: "FormEngine", targets: ["FormEngine", "FormRegex"]),
    ],
    dependencies: [],
    targets: [
        .target(name: "FormRegex"),
        .target(name: "FormEngine", dependencies: ["FormRegex"]),
        .executableTarget(name: "RegexBenchmark", dependencies: ["FormRegex"]),
        .executableTarget(name: "EngineBenchmark", dependencies: ["FormEngine"]),
        .testTarget(name: "FormRegexTests", dependencies: ["FormRegex"]),
        .testTarget(name: "FormEngineTests", dependencies: ["FormEngine", "FormRegex"]),
    ]
)
