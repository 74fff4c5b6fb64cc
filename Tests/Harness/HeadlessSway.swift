import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real Wayland compositor for the tests: Debian's sway on wlroots'
/// headless backend (no GPU, no input devices, software rendering), in a
/// scratch runtime directory, run as `uid` (sway refuses root; nil: as the
/// test). Its one output, HEADLESS-1, is turned with `swaymsg`.
public final class HeadlessSway {
    /// The runtime directory: its Wayland socket and sway's IPC socket,
    /// the compositor's user's alone.
    public let runtimeDirectory: String
    /// A folder the test and the compositor's user both write (sticky, as
    /// /tmp): logs, actions files, what commands write.
    public let scratch: String
    public let uid: UInt32?
    public private(set) var waylandDisplay = ""
    /// sway's IPC socket (`SWAYSOCK`).
    public private(set) var ipcSocket = ""
    private let sway: Child

    public static let requirement = Requirement(
        met: FileManager.default.isExecutableFile(atPath: "/usr/bin/sway")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/swaymsg"),
        missing: "no sway: `make setup` installs it (Debian package sway), the compositor the rotation tests turn")

    /// The user to run a compositor and its clients as: the test's, unless that is root.
    public static var user: UInt32? { Requirement.isRoot ? Requirement.strangerUID : nil }

    /// `command` as `uid` (through setpriv, as root), with `environment`.
    public static func command(_ command: [String], as uid: UInt32?, environment: [String: String]) -> [String] {
        let env = ["/usr/bin/env", "-i"] + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        guard let uid else { return env + command }
        return Requirement.asUser(uid, env + command)
    }

    public init(uid: UInt32? = HeadlessSway.user) throws {
        self.uid = uid
        let base = NSTemporaryDirectory() + "gestured-sway-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        runtimeDirectory = base + "/runtime"
        scratch = base + "/scratch"
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        chmod(base, 0o755)
        chmod(runtimeDirectory, 0o700)
        chmod(scratch, 0o1777)
        // No Xwayland: the tests open Wayland windows only, and Xwayland's
        // sockets would make /tmp/.X11-unix as the compositor's user, which
        // a root compositor started later refuses ("not owned by root or us").
        try "xwayland disable\n".write(toFile: scratch + "/config", atomically: true, encoding: .utf8)
        chmod(scratch + "/config", 0o644)
        if let uid, uid != geteuid() {
            let r = try Child.run(Requirement.asRoot(["/bin/chown", "\(uid):\(uid)", runtimeDirectory]), timeout: 20)
            guard r.status == 0 else { throw ChannelError("cannot give \(runtimeDirectory) to uid \(uid): \(r.err)") }
            // The folder above it is root's, as /run/user is: act trusts a
            // compositor's socket only in folders of root's or its own
            // user's, and a test run as yourself would otherwise hand it one of yours.
            let b = try Child.run(Requirement.asRoot(["/bin/chown", "0:0", base]), timeout: 20)
            guard b.status == 0 else { throw ChannelError("cannot give \(base) to root: \(b.err)") }
        }
        sway = try Child(
            Self.command(
                ["/usr/bin/sway", "--verbose", "--config", scratch + "/config"], as: uid,
                environment: [
                    "XDG_RUNTIME_DIR": runtimeDirectory, "HOME": runtimeDirectory, "PATH": "/usr/bin:/bin",
                    "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman",
                    "SWAYSOCK": runtimeDirectory + "/sway-ipc.sock",
                ]), stdout: .file(scratch + "/sway.log"))
        // Its Wayland socket is named in its log: the runtime directory may be another user's.
        ipcSocket = runtimeDirectory + "/sway-ipc.sock"
        for _ in 0..<300 {
            if let w = Self.value(after: "Running compositor on wayland display '", in: log) {
                waylandDisplay = w
                return
            }
            usleep(50_000)
        }
        throw ChannelError("sway did not start: \(log)")
    }

    deinit {
        sway.signal(SIGTERM)
        _ = try? sway.wait(timeout: 10)
        let base = (runtimeDirectory as NSString).deletingLastPathComponent
        if let uid, uid != geteuid() {
            _ = try? Child.run(Requirement.asRoot(["/bin/rm", "-rf", base]), timeout: 20)
        }
        try? FileManager.default.removeItem(atPath: base)
    }

    public var log: String { (try? String(contentsOfFile: scratch + "/sway.log", encoding: .utf8)) ?? "" }

    /// The text after `prefix` in `text`, up to a quote or the line's end.
    private static func value(after prefix: String, in text: String) -> String? {
        guard let r = text.range(of: prefix) else { return nil }
        let rest = text[r.upperBound...]
        let end = rest.firstIndex { $0 == "'" || $0 == "\n" } ?? rest.endIndex
        return rest[..<end].isEmpty ? nil : String(rest[..<end])
    }

    /// What a client of this compositor needs in its environment.
    public var clientEnvironment: [String: String] {
        [
            "XDG_RUNTIME_DIR": runtimeDirectory, "WAYLAND_DISPLAY": waylandDisplay, "HOME": runtimeDirectory,
            "PATH": "/usr/bin:/bin",
        ]
    }

    /// `swaymsg output HEADLESS-1 transform T` (sway's names: normal, 90,
    /// 180, 270, flipped, flipped-90, …, turning clockwise).
    public func transform(_ t: String) throws {
        try message(["output", "HEADLESS-1", "transform", t])
    }

    /// `swaymsg ARGUMENTS` (a command: `fullscreen enable`, `workspace 2`).
    public func message(_ arguments: [String]) throws {
        let r = try Child.run(
            Self.command(
                ["/usr/bin/swaymsg"] + arguments, as: uid,
                environment: clientEnvironment.merging(["SWAYSOCK": ipcSocket]) { $1 }), timeout: 20)
        guard r.status == 0 else { throw ChannelError("swaymsg \(arguments.joined(separator: " ")): \(r.out) \(r.err)") }
    }

    public static let footRequirement = Requirement(
        met: FileManager.default.isExecutableFile(atPath: "/usr/bin/foot"),
        missing: "no foot: `make setup-tests` installs it (Debian package foot), the window the focus tests open")

    /// A window of app `app` titled `title` (a foot terminal running
    /// `sleep`), as the compositor's user; it takes the focus.
    public func window(app: String, title: String) throws -> Child {
        try Child(
            Self.command(
                ["/usr/bin/foot", "--app-id=" + app, "--title=" + title, "/bin/sleep", "600"], as: uid,
                environment: clientEnvironment), stdout: .file(scratch + "/foot-\(app).log"))
    }
}
