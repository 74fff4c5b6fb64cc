// swift-tools-version: 6.1
// gestured's benchmarks: a package of its own so that the main build stays
// light. Run them with `make bench` from the repository root, or here with
// `swift package benchmark`. See docs/performance.md.
import PackageDescription

let package = Package(
    name: "gestured-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "gestured", path: "../"),
        // MallocInterposer: allocation counts on Swift 6.3 without jemalloc.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The recognizer pipeline per frame, trace parsing, event JSON, and
        // fan-out to subscribers.
        .executableTarget(
            name: "Gestured",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GestureCore", package: "gestured"),
                .product(name: "GestureDaemon", package: "gestured"),
            ],
            path: "Benchmarks/Gestured",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ],
    swiftLanguageModes: [.v6]
)
