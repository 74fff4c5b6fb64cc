// swift-tools-version: 6.1
// libFuzzer targets for what gestured reads from outside: evemu and
// `libinput record` traces, configuration files, and socket requests.
// A package of its own: its targets only link with -sanitize=fuzzer.
// Run them with `make fuzz` (scripts/fuzz.sh); see docs/security.md.
import PackageDescription

let fuzzTarget: (String) -> Target = { name in
    .executableTarget(
        name: name,
        dependencies: [
            "CFuzz",
            .product(name: "GestureCore", package: "gestured"),
            .product(name: "GestureConfiguration", package: "gestured"),
            .product(name: "GestureDaemon", package: "gestured"),
        ]
    )
}

let package = Package(
    name: "gestured-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "gestured", path: "../")],
    targets: [.target(name: "CFuzz")]
        + ["FuzzEvemu", "FuzzLibinputRecord", "FuzzConfig", "FuzzRequest"].map(fuzzTarget),
    swiftLanguageModes: [.v6]
)
