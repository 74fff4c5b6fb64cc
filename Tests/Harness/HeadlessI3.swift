import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real X11 session for the tests: Xvfb (an X server with no screen),
/// the i3 window manager on it with its IPC socket in a scratch folder
/// (from the start, or when `startWindowManager` is called), and xterm
/// windows of chosen `WM_CLASS` classes. Run as the test's user.
public final class HeadlessI3 {
    public let scratch: String
    /// The X display (":N"), which Xvfb chose.
    public private(set) var display = ""
    /// i3's IPC socket (`I3SOCK`).
    public let ipcSocket: String
    private let xvfb: Child
    private var i3: Child?

    public static let requirement = Requirement(
        met: ["/usr/bin/Xvfb", "/usr/bin/i3", "/usr/bin/i3-msg", "/usr/bin/xterm"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: $0)
        },
        missing:
            "no Xvfb, i3 or xterm: `make setup-tests` installs them (Debian packages xvfb, i3-wm, xterm), the X11 session the focus tests open windows in"
    )

    public init(windowManager: Bool = true) throws {
        scratch = NSTemporaryDirectory() + "gestured-i3-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        ipcSocket = scratch + "/i3.sock"
        // Xvfb picks a free display and writes its number on standard output.
        xvfb = try Child(
            ["/usr/bin/Xvfb", "-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
            environment: ["PATH": "/usr/bin:/bin"], stdout: .pipe, stderr: .file(scratch + "/xvfb.log"))
        let lines = LineChannel(fd: xvfb.output)
        guard let number = try lines.readLine(timeout: 20), Int(number) != nil else {
            throw ChannelError("Xvfb did not say its display: \(log("xvfb.log"))")
        }
        display = ":" + number
        try "ipc-socket \(ipcSocket)\nfont pango:monospace 8\n".write(
            toFile: scratch + "/config", atomically: true, encoding: .utf8)
        if windowManager { try startWindowManager() }
    }

    /// Starts i3 and waits until it answers on its IPC socket.
    public func startWindowManager() throws {
        i3 = try Child(
            ["/usr/bin/i3", "-c", scratch + "/config"], environment: environment, stdout: .file(scratch + "/i3.log"))
        for _ in 0..<200 {
            if (try? message(["-t", "get_version"])) != nil { return }
            usleep(50_000)
        }
        throw ChannelError("i3 did not start: \(log("i3.log"))")
    }

    deinit {
        i3?.signal(SIGTERM)
        _ = try? i3?.wait(timeout: 10)
        xvfb.signal(SIGTERM)
        _ = try? xvfb.wait(timeout: 10)
        try? FileManager.default.removeItem(atPath: scratch)
    }

    private func log(_ name: String) -> String {
        (try? String(contentsOfFile: scratch + "/" + name, encoding: .utf8)) ?? ""
    }

    /// What an X11 client of this session needs in its environment.
    public var environment: [String: String] { ["DISPLAY": display, "HOME": scratch, "PATH": "/usr/bin:/bin"] }

    /// `i3-msg ARGUMENTS` (a command: `fullscreen enable`).
    @discardableResult
    public func message(_ arguments: [String]) throws -> String {
        let r = try Child.run(["/usr/bin/i3-msg", "-s", ipcSocket] + arguments, environment: environment, timeout: 20)
        guard r.status == 0 else { throw ChannelError("i3-msg \(arguments.joined(separator: " ")): \(r.out) \(r.err)") }
        return r.out
    }

    /// An xterm window of `WM_CLASS` class `app` titled `title`, running
    /// `sleep`; it takes the focus.
    public func window(app: String, title: String) throws -> Child {
        try Child(
            ["/usr/bin/xterm", "-class", app, "-T", title, "-e", "/bin/sleep", "600"], environment: environment,
            stdout: .file(scratch + "/xterm-\(app).log"))
    }
}
