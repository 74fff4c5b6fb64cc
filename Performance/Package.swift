// swift-tools-version: 6.1
// gestured's measuring programs: a package of their own, so that the
// product builds from Sources/ alone. The scripts beside it run them;
// docs/performance.md says what each measures.
import PackageDescription

let package = Package(
    name: "gestured-performance",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "gestured", path: "../")
    ],
    targets: [
        // The daemon's cost per frame above libinput, beside lisgd's (Performance/scripts/daemon-cost.sh).
        .executableTarget(
            name: "daemon-cost",
            dependencies: [
                .product(name: "GestureCore", package: "gestured"),
                .product(name: "Harness", package: "gestured"),
            ],
            path: "DaemonCost")
    ]
)
