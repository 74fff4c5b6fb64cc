// swift-tools-version: 6.1
import PackageDescription

/// Settings every target shares: strict module visibility, and the Swift 6
/// language mode set below for the whole package.
let sharedSettings: [SwiftSetting] = [
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "gestured",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "gestured", targets: ["gestured"]),
        .library(name: "GestureCore", targets: ["GestureCore"]),
        // For the fuzz targets (Fuzz/): the configuration reader; not a stable API.
        .library(name: "GestureConfiguration", targets: ["GestureConfiguration"]),
        // For the benchmark package (Benchmarks/), through `@_spi(Benchmarks)`; not a stable API.
        .library(name: "GestureDaemon", targets: ["GestureDaemon"]),
        // Test support, for the measuring programs of Performance/ too.
        .library(name: "Harness", targets: ["Harness"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // System calls with typed errors (FileDescriptor, Errno), EINTR retried in one place.
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // Property-based tests of the pipeline (random touch streams), tests only.
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // libinput + libudev for the daemon (Debian: libinput-dev, libudev-dev).
        .systemLibrary(
            name: "CInput",
            pkgConfig: "libinput",
            providers: [.apt(["libinput-dev", "libudev-dev"])]
        ),
        // libyaml, for `libinput record` files (Debian: libyaml-dev).
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        // libevdev, for `gestured record` and the kernel's event names (Debian: libevdev-dev).
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        // sd-bus from libsystemd: logind's active session on the daemon's seat (Debian: libsystemd-dev).
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // One sd-bus connection that follows one service's owner and takes
        // only its messages: the daemon's watchers (logind,
        // iio-sensor-proxy) and act's desktop sources (KWin, GNOME Shell,
        // the on-screen keyboards).
        .target(
            name: "BusSupport",
            dependencies: ["GestureCore", "CSystemd", .product(name: "SystemPackage", package: "swift-system")]),
        // The engine: touch model, thresholds, recognizers, pipeline, events,
        // trace readers. No I/O, no Foundation, no configuration, and no C of
        // its own (libyaml reads YAML).
        .target(
            name: "GestureCore",
            dependencies: ["CYAML"]
        ),
        // A TOML 1.0 reader, hand-written (docs/design.md says why), for the
        // daemon's configuration and act's actions files.
        .target(name: "TOML"),
        // What every tool of the package needs, the daemon's and act's alike:
        // files read whole within a size limit, lines from a descriptor, every
        // byte written, the monotonic clock, log-safe text, a socket address,
        // configuration errors with their lines.
        .target(
            name: "ToolSupport",
            dependencies: ["GestureCore", "CLinux", .product(name: "SystemPackage", package: "swift-system")]
        ),
        // The protocol's words the daemon and its clients share: key chords
        // (named by libevdev's table), the names of gestures and phases, JSON
        // strings; and a client's side: its subscribe line, its connection.
        .target(
            name: "GestureProtocol",
            dependencies: [
                "GestureCore", "CEvdev", "CLinux", "ToolSupport", .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // gestured's configuration (thresholds, devices, [daemon]), read from
        // TOML, and traces loaded with it (`TraceLoader`): for the daemon,
        // `check-config`, `replay` and `tune`.
        .target(name: "GestureConfiguration", dependencies: ["GestureCore", "TOML", "ToolSupport"]),
        // Linux calls Swift's Glibc module lacks (signalfd, SO_PEERCRED, accept4),
        // compiled with _GNU_SOURCE; and the libinput log trampoline.
        .target(
            name: "CLinux",
            cSettings: [.define("_GNU_SOURCE")],
            linkerSettings: [.linkedLibrary("input")]
        ),
        // act's one connection to its Wayland compositor: the outputs and
        // how each is turned, the focused window (wlr-foreign-toplevel),
        // act's own pointer (wlr-virtual-pointer); the protocols' XML in
        // protocols/, wayland-scanner's C in generated/ (Debian:
        // libwayland-dev, libwayland-bin).
        .target(
            name: "CWayland", exclude: ["protocols"], linkerSettings: [.linkedLibrary("wayland-client")]),
        // The active window of an X11 session (EWMH), for `gestured act`'s
        // per-app bindings (Debian: libxcb1-dev).
        .target(name: "CX11", linkerSettings: [.linkedLibrary("xcb")]),
        // The daemon: libinput and replayed devices, the poll loop, the socket
        // protocol, systemd integration, its configuration.
        .target(
            name: "GestureDaemon",
            dependencies: [
                "GestureCore", "GestureProtocol", "GestureConfiguration", "ToolSupport", "TOML", "CInput", "CLinux",
                "CEvdev", "CSystemd", "BusSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // Tools over traces: pictures (SVG) and the tuning report.
        .target(name: "GestureTools", dependencies: ["GestureCore"]),
        // `gestured act`: a client that carries out bindings (commands, key
        // chords through uinput) from an actions file.
        .target(
            name: "GestureActions",
            dependencies: [
                "GestureCore", "GestureProtocol", "ToolSupport", "TOML", "CLinux", "CEvdev", "CWayland", "CX11",
                "CSystemd", "BusSupport", .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .executableTarget(
            name: "gestured",
            dependencies: [
                "GestureCore", "GestureDaemon", "GestureTools", "GestureActions", "GestureProtocol",
                "GestureConfiguration", "ToolSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // Generates the human-like traces in Recordings/ and the unseen hands
        // the tests draw at random.
        .target(name: "TraceSynth", dependencies: ["GestureCore"]),
        .executableTarget(
            name: "synth-recordings",
            dependencies: ["TraceSynth", .product(name: "SystemPackage", package: "swift-system")],
            path: "Sources/synth-recordings"),
        // How well strokes people drew match their shapes (docs/gestures.md, "Strokes").
        .executableTarget(name: "stroke-accuracy", dependencies: ["GestureCore"], path: "Sources/stroke-accuracy"),
        .testTarget(
            name: "GestureCoreTests",
            dependencies: [
                "GestureCore", "TraceSynth",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "CInputTests", dependencies: ["CInput"]),
        // The TOML reader against the specification, and its conformance cases.
        .testTarget(name: "TOMLTests", dependencies: ["TOML"]),
        // Each module's tests in a target of its own name (Tests/NAMETests).
        // The configuration reader.
        .testTarget(
            name: "GestureConfigurationTests",
            dependencies: ["GestureConfiguration", "GestureCore", "TOML", "ToolSupport", "Harness"]),
        // What every tool shares: lines, files, log text, addresses.
        .testTarget(name: "ToolSupportTests", dependencies: ["ToolSupport", "GestureCore"]),
        // The protocol's words: chords, claims, names, JSON strings.
        .testTarget(name: "GestureProtocolTests", dependencies: ["GestureProtocol", "GestureCore"]),
        // The daemon: its parts in process, its protocol through the real binary
        // (built first: the test target depends on it).
        .testTarget(
            name: "GestureDaemonTests",
            dependencies: [
                "GestureDaemon", "GestureCore", "GestureConfiguration", "TOML", "Harness", "TraceSynth", "gestured", "CEvdev",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // The executable and what ships beside it: the command line, the
        // documented example clients, the units, the package's version and
        // changelog, the README's set-up steps.
        .testTarget(name: "gesturedTests", dependencies: ["Harness", "gestured"]),
        // `gestured act`, in process and through the real binary.
        .testTarget(
            name: "GestureActionsTests",
            dependencies: [
                "GestureActions", "GestureDaemon", "GestureCore", "GestureProtocol", "Harness", "TraceSynth", "gestured",
            ]),
        // The tools over traces: pictures (`replay --svg`), `gestured tune` and its report.
        .testTarget(
            name: "GestureToolsTests",
            dependencies: ["GestureTools", "GestureCore", "Harness", "TraceSynth", "gestured"]),
        // Test support: socket clients, the umockdev session, emulated touchscreens.
        // Its C half (Tests/Harness/c) is built by scripts/build-harness.sh, not SwiftPM,
        // so that only the end-to-end tests need libumockdev-dev.
        .target(
            name: "Harness", dependencies: ["GestureCore", "GestureDaemon", "CHarness"], path: "Tests/Harness",
            exclude: ["c", "python"]),
        // posix_spawn with every other descriptor closed, and close-on-exec pipes,
        // for the harness's child processes (glibc's _np calls need _GNU_SOURCE).
        .target(name: "CHarness", path: "Tests/CHarness", cSettings: [.define("_GNU_SOURCE")]),
        // The real gestured binary on the real libinput, through umockdev.
        .testTarget(name: "EndToEndTests", dependencies: ["Harness", "GestureCore", "gestured"]),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system && !["CLinux", "CWayland", "CX11", "CHarness"].contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + sharedSettings
}
