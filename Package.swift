// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Formhouse",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "FormRegex", targets: ["FormRegex"]),
    ],
    dependencies: [],
    targets: [
        .target(name: "FormRegex"),
        .executableTarget(name: "RegexBenchmark", dependencies: ["FormRegex"]),
        .testTarget(name: "FormRegexTests", dependencies: ["FormRegex"]),
    ]
)
