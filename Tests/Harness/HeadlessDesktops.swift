import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real KWin for the tests: Debian's `kwin_wayland` on its virtual
/// backend (no GPU, no input devices, software rendering), with a session
/// bus of its own (`dbus-daemon --session` listening in the scratch
/// folder), run as the test's user. Windows are GTK 3 windows
/// (`GtkWindows`) with the app id asked for.
///
/// The installed binary carries a file capability (`cap_sys_resource`),
/// which some sandboxes refuse to exec; a plain copy in the scratch folder
/// has none and starts everywhere.
public final class HeadlessKWin {
    /// Where the compositor runs from: this machine, or a Debian 13 root.
    public let root: DesktopRoot
    /// The runtime directory (its Wayland socket) and home, the test's alone.
    public let runtimeDirectory: String
    /// Logs, actions files, what commands write.
    public let scratch: String
    public let waylandDisplay = "kwin-test-0"
    /// The private session bus KWin, act and the windows share.
    public let bus: PrivateSessionBus
    public var busAddress: String { bus.address }
    private let kwin: Child

    public static let requirement = Requirement(
        met: FileManager.default.isExecutableFile(atPath: "/usr/bin/kwin_wayland")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon") && GtkWindows.available,
        missing:
            "no kwin_wayland, dbus-daemon or GTK 3 for Python: `make setup-tests` installs them (Debian packages kwin-wayland, dbus-daemon, python3-gi, gir1.2-gtk-3.0)"
    )

    public init(in root: DesktopRoot = .host) throws {
        self.root = root
        let base = NSTemporaryDirectory() + "gestured-kwin-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        runtimeDirectory = base + "/runtime"
        scratch = base + "/scratch"
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        chmod(runtimeDirectory, 0o700)
        // A copy has no file capability; its name stays kwin_wayland (KWin 6's Qt platform plugin looks for it).
        let binary: String
        if root.isHost {
            try FileManager.default.createDirectory(atPath: scratch + "/kwin", withIntermediateDirectories: true)
            binary = scratch + "/kwin/kwin_wayland"
            try FileManager.default.copyItem(atPath: "/usr/bin/kwin_wayland", toPath: binary)
        } else {
            binary = "/opt/kwin/kwin_wayland"
        }
        bus = try PrivateSessionBus(directory: scratch)
        kwin = try Child(
            root.command(
                [binary, "--virtual", "--socket", waylandDisplay, "--width", "1280", "--height", "720"],
                environment: Self.environment(runtime: runtimeDirectory, bus: bus.address)),
            stdout: .file(scratch + "/kwin.log"))
        // Ready once its socket is there and it owns its name on the bus.
        for _ in 0..<400 {
            if FileManager.default.fileExists(atPath: runtimeDirectory + "/" + waylandDisplay),
                (try? bus.hasOwner("org.kde.KWin")) == true
            {
                return
            }
            usleep(50_000)
        }
        throw ChannelError("KWin did not start: \(log)")
    }

    deinit {
        kwin.signal(SIGTERM)
        _ = try? kwin.wait(timeout: 10)
        bus.stop()
        root.remove((runtimeDirectory as NSString).deletingLastPathComponent)
    }

    private static func environment(runtime: String, bus: String) -> [String: String] {
        [
            "XDG_RUNTIME_DIR": runtime, "HOME": runtime, "PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": bus,
        ]
    }

    public var log: String { (try? String(contentsOfFile: scratch + "/kwin.log", encoding: .utf8)) ?? "" }

    /// What a client of this KWin needs in its environment (act: it is a Plasma session).
    public var clientEnvironment: [String: String] {
        [
            "XDG_RUNTIME_DIR": runtimeDirectory, "WAYLAND_DISPLAY": waylandDisplay, "HOME": runtimeDirectory,
            "PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": busAddress, "XDG_CURRENT_DESKTOP": "KDE",
        ]
    }

    /// Runs `script` on the session bus (see `PrivateSessionBus.python`).
    @discardableResult
    public func python(_ script: String) throws -> String { try bus.python(script) }

    /// The names of the scripts loaded in KWin among `names`.
    public func scriptsLoaded(_ names: [String]) throws -> [String] {
        try names.filter {
            try python(
                "print(bool(dbus.Interface(bus.get_object('org.kde.KWin', '/Scripting'), 'org.kde.kwin.Scripting').isScriptLoaded('\($0)')))"
            ).trimmingCharacters(in: .whitespacesAndNewlines) == "True"
        }
    }

    /// A window of app `app` titled `title`; it takes the focus.
    public func window(app: String, title: String) throws -> GtkWindows.Window {
        try GtkWindows.open(app: app, title: title, environment: clientEnvironment, log: scratch + "/window-\(app).log")
    }
}

/// Windows for the compositor tests: a GTK 3 window (PyGObject, Debian's
/// python3-gi) whose Wayland app id is the app asked for, that goes
/// fullscreen on SIGUSR1 and back on SIGUSR2 and closes on SIGTERM.
public enum GtkWindows {
    public static let available =
        FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/gi/__init__.py")
        && FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/girepository-1.0/Gtk-3.0.typelib")

    static let program = """
        import signal, sys, gi
        gi.require_version("Gtk", "3.0")
        from gi.repository import GLib, Gtk
        GLib.set_prgname(sys.argv[1])
        w = Gtk.Window(title=sys.argv[2])
        w.set_default_size(320, 240)
        w.connect("destroy", Gtk.main_quit)
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, lambda: w.fullscreen() or True)
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR2, lambda: w.unfullscreen() or True)
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, lambda: Gtk.main_quit() or False)
        w.show_all()
        print("shown", flush=True)
        Gtk.main()
        """

    /// One window, its process.
    public final class Window {
        public let child: Child
        init(_ child: Child) { self.child = child }
        public func fullscreen(_ on: Bool) { child.signal(on ? SIGUSR1 : SIGUSR2) }
        public func close() {
            child.signal(SIGTERM)
            _ = try? child.wait(timeout: 10)
        }
    }

    public static func open(app: String, title: String, environment: [String: String], log: String) throws -> Window {
        let env = environment.merging(["GDK_BACKEND": "wayland", "NO_AT_BRIDGE": "1"]) { $1 }
        let child = try Child(
            ["/usr/bin/env", "-i"] + env.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                + ["/usr/bin/python3", "-c", program, app, title], stdout: .file(log))
        for _ in 0..<200 {
            if let text = try? String(contentsOfFile: log, encoding: .utf8), text.contains("shown") { return Window(child) }
            usleep(50_000)
        }
        throw ChannelError("the window of \(app) did not open: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }
}

/// A session bus of the test's own: `dbus-daemon --session` listening in
/// the test's scratch folder, for the test's user.
public final class PrivateSessionBus {
    public let address: String
    private let daemon: Child
    private var children: [Child] = []

    public static let requirement = Requirement(
        met: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbusmock/__init__.py"),
        missing: "no dbus-daemon or python3-dbusmock: `make setup` installs them (Debian packages dbus-daemon, python3-dbusmock)")

    public init(directory: String) throws {
        address = "unix:path=\(directory)/session-bus"
        daemon = try Child(
            ["/usr/bin/dbus-daemon", "--session", "--nofork", "--nosyslog", "--address=\(address)"],
            stdout: .file(directory + "/session-bus.log"))
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: directory + "/session-bus") { usleep(10_000) }
    }

    deinit { stop() }

    public func stop() {
        for c in children + [daemon] {
            c.signal(SIGTERM)
            _ = try? c.wait(timeout: 10)
        }
        children = []
    }

    /// Starts `command` on the bus; its output goes to `log`.
    @discardableResult
    public func start(_ command: [String], log: String) throws -> Child {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        let child = try Child(command, environment: env, stdout: .file(log))
        children.append(child)
        return child
    }

    /// Runs `script` (Python, with `dbus` imported and `bus`, this bus, at hand).
    @discardableResult
    public func python(_ script: String) throws -> String {
        let r = try Child.run(
            ["/usr/bin/python3", "-c", "import dbus\nbus = dbus.bus.BusConnection('\(address)')\n" + script],
            timeout: 20)
        guard r.status == 0 else { throw ChannelError("session bus: \(r.err)") }
        return r.out
    }

    /// Whether `name` has an owner on the bus.
    public func hasOwner(_ name: String) throws -> Bool {
        try python("print(bus.name_has_owner('\(name)'))").trimmingCharacters(in: .whitespacesAndNewlines) == "True"
    }
}

/// A real GNOME Shell for the tests: Debian's `gnome-shell --headless`
/// (mutter's surfaceless renderer, one virtual monitor), with a session
/// bus of its own, logind from python-dbusmock on a system bus of its own
/// (the Shell stops without one), the package's extension from this
/// checkout (`XDG_DATA_DIRS`) enabled in a keyfile of settings in the
/// scratch home, and the overview it starts in closed, so that windows
/// take the focus.
public final class HeadlessGNOMEShell {
    public let root: DesktopRoot
    public let runtimeDirectory: String
    public let scratch: String
    public let waylandDisplay = "gnome-test-0"
    public let bus: PrivateSessionBus
    private let logind: LogindMock
    private let shell: Child

    public static let requirement = Requirement(
        met: FileManager.default.isExecutableFile(atPath: "/usr/bin/gnome-shell") && GtkWindows.available
            && PrivateSystemBus.requirement.met,
        missing:
            "no gnome-shell, GTK 3 for Python or python3-dbusmock: `make setup-tests` installs them (Debian packages gnome-shell, python3-gi, gir1.2-gtk-3.0, python3-dbusmock)"
    )

    /// The package's extension, in the format of the Shell of `root`
    /// (scripts/gnome-extension.sh), is enabled if `enabled`.
    public init(in root: DesktopRoot = .host, enabled: Bool = true) throws {
        self.root = root
        let base = NSTemporaryDirectory() + "gestured-gnome-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        runtimeDirectory = base + "/runtime"
        scratch = base + "/scratch"
        let settings = scratch + "/home/.config/glib-2.0/settings"
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: settings, withIntermediateDirectories: true)
        chmod(runtimeDirectory, 0o700)
        let shared = scratch + "/share"
        // This machine's Shell reads the format the script chooses here; Debian 13's, ES modules.
        let script = BuildProducts.packageRoot + "/scripts/gnome-extension.sh"
        let format = root.isHost ? "$(\(script) --format)" : "module"
        let made = try Child.run(
            ["/bin/sh", "-c", "\(script) \(format) \(shared)/gnome-shell/extensions"], timeout: 20)
        guard made.status == 0 else { throw ChannelError("scripts/gnome-extension.sh: \(made.err)") }
        try "[org/gnome/shell]\nenabled-extensions=[\(enabled ? "'gestured-context@gestured'" : "")]\n".write(
            toFile: settings + "/keyfile", atomically: true, encoding: .utf8)
        logind = try LogindMock()
        bus = try PrivateSessionBus(directory: scratch)
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": scratch + "/home", "XDG_RUNTIME_DIR": runtimeDirectory,
            "DBUS_SESSION_BUS_ADDRESS": bus.address, "DBUS_SYSTEM_BUS_ADDRESS": logind.address,
            "GSETTINGS_BACKEND": "keyfile", "XDG_DATA_DIRS": "\(shared):/usr/local/share:/usr/share",
        ]
        shell = try Child(
            root.command(
                [
                    "/usr/bin/gnome-shell", "--headless", "--wayland", "--no-x11", "--virtual-monitor", "1280x720",
                    "--wayland-display", waylandDisplay,
                ], environment: environment), stdout: .file(scratch + "/shell.log"))
        // Ready once the extension answers (the Shell enables extensions when
        // its start is done); then out of the overview it starts in, twice
        // in a row, since the start's animation opens it late.
        let properties =
            "dbus.Interface(bus.get_object('org.gnome.Shell', '/org/gnome/Shell'), 'org.freedesktop.DBus.Properties')"
        var closed = 0
        for _ in 0..<600 {
            usleep(100_000)
            let path = enabled ? "/org/gestured/Context" : "/org/gnome/Shell"
            let interface = enabled ? "org.gestured.Context1" : "org.gnome.Shell"
            guard
                (try? bus.python(
                    "dbus.Interface(bus.get_object('org.gnome.Shell', '\(path)'), 'org.freedesktop.DBus.Properties').GetAll('\(interface)')"
                )) != nil
            else { continue }
            let overview = try? bus.python("print(bool(\(properties).Get('org.gnome.Shell', 'OverviewActive')))")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            if overview == "False" {
                closed += 1
                if closed == 2 { return }
                usleep(400_000)
            } else {
                closed = 0
                _ = try? bus.python("\(properties).Set('org.gnome.Shell', 'OverviewActive', False)")
            }
        }
        throw ChannelError("GNOME Shell did not start: \(log)")
    }

    deinit {
        shell.signal(SIGTERM)
        _ = try? shell.wait(timeout: 10)
        bus.stop()
        root.remove((runtimeDirectory as NSString).deletingLastPathComponent)
    }

    public var log: String { (try? String(contentsOfFile: scratch + "/shell.log", encoding: .utf8)) ?? "" }

    /// What a client of this Shell needs in its environment (act: it is a GNOME session).
    public var clientEnvironment: [String: String] {
        [
            "XDG_RUNTIME_DIR": runtimeDirectory, "WAYLAND_DISPLAY": waylandDisplay, "HOME": scratch + "/home",
            "PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_CURRENT_DESKTOP": "GNOME",
        ]
    }

    /// A window of app `app` titled `title`; it takes the focus.
    public func window(app: String, title: String) throws -> GtkWindows.Window {
        try GtkWindows.open(app: app, title: title, environment: clientEnvironment, log: scratch + "/window-\(app).log")
    }
}

/// Where a desktop test's compositor runs from: this machine (Debian 12:
/// KWin 5.27, GNOME Shell 43), or the Debian 13 root that `make
/// setup-tests` makes (`DESKTOP_ROOT`, by default .build/debian13; KWin
/// 6.3, GNOME Shell 48), entered with chroot in a private mount namespace
/// where /proc, /dev, /sys and /tmp are this machine's, so that the
/// compositor, act and the windows meet in the test's scratch folder. The
/// root is entered as root (through sudo -n as a user), and the command in
/// it runs as the test's user, as it does on this machine: the session bus
/// is the test user's, and a session bus takes only its own user.
public struct DesktopRoot: Sendable {
    /// The root's folder; nil: this machine.
    public let path: String?
    public var isHost: Bool { path == nil }

    public static let host = DesktopRoot(path: nil)
    public static let debian13 = DesktopRoot(
        path: ProcessInfo.processInfo.environment["DESKTOP_ROOT"].map {
            $0.hasPrefix("/") ? $0 : BuildProducts.packageRoot + "/" + $0
        }
            ?? BuildProducts.packageRoot + "/.build/debian13")

    /// Whether the compositors are there (and, for a root, whether it can be entered).
    public var requirement: Requirement {
        guard let path else { return Requirement(met: true, missing: "") }
        return Requirement(
            met: FileManager.default.fileExists(atPath: path + "/.gestured-root-complete")
                && (Requirement.isRoot || Requirement.sudoWorks) && NSTemporaryDirectory().hasPrefix("/tmp"),
            missing:
                "no Debian 13 root at \(path) (`make debian13-root` makes it, with sudo), or no root to enter it with, or TMPDIR outside /tmp"
        )
    }

    /// `command` with exactly `environment`, here or in the root (where a
    /// SIGTERM to the command's process reaches the compositor too).
    public func command(_ command: [String], environment: [String: String]) -> [String] {
        let env = ["/usr/bin/env", "-i"] + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        guard let path else { return env + command }
        // The root's compositors get X sockets of their own: those of the
        // machine's /tmp/.X11-unix are not theirs, and an X socket folder of
        // another user's makes labwc, which cannot go without Xwayland, stop.
        let mounts =
            ["proc", "dev", "sys"].map { "mount --rbind /\($0) '\(path)/\($0)'" } + [
                "mount --bind /tmp '\(path)/tmp'",
                "{ [ ! -d '\(path)/tmp/.X11-unix' ] || mount -t tmpfs -o mode=1777 tmpfs '\(path)/tmp/.X11-unix'; }",
            ]
        return Requirement.asRoot(
            [
                "/usr/bin/unshare", "--mount", "--propagation", "private", "--fork", "--kill-child=SIGTERM", "--",
                "/bin/sh", "-c",
                mounts.joined(separator: " && ")
                    + " && exec /usr/sbin/chroot --userspec=\(getuid()):\(getgid()) '\(path)' \"$@\"", "sh",
            ] + env + command)
    }

    /// Removes a scratch folder the compositor wrote in (as the test's user, here or in the root).
    func remove(_ folder: String) {
        try? FileManager.default.removeItem(atPath: folder)
    }
}

/// A wlroots compositor for the tests, on wlroots' headless backend
/// (software rendering, no input devices) in a scratch runtime directory,
/// as the test's user: Phosh's phoc from this machine (Debian 12), or
/// labwc from the Debian 13 root (Debian 12 has none). act reads the focus
/// from either through wlr-foreign-toplevel-management; Phosh's session
/// names GNOME too (`Phosh:GNOME`), and act must still read phoc's.
public final class HeadlessWlroots {
    public enum Kind: Sendable {
        case phoc, labwc

        var name: String { self == .phoc ? "phoc" : "labwc" }
        var root: DesktopRoot { self == .phoc ? .host : .debian13 }
        /// What a session of it names in `XDG_CURRENT_DESKTOP`.
        var desktop: String { self == .phoc ? "Phosh:GNOME" : "labwc:wlroots" }
    }

    public let kind: Kind
    public let runtimeDirectory: String
    public let scratch: String
    public private(set) var waylandDisplay = ""
    private let compositor: Child

    public static func requirement(_ kind: Kind) -> Requirement {
        switch kind {
        case .phoc:
            Requirement(
                met: FileManager.default.isExecutableFile(atPath: "/usr/bin/phoc") && GtkWindows.available,
                missing:
                    "no phoc or GTK 3 for Python: `make setup-tests` installs them (Debian packages phoc, python3-gi, gir1.2-gtk-3.0)"
            )
        case .labwc:
            Requirement(
                met: DesktopRoot.debian13.requirement.met && GtkWindows.available
                    && FileManager.default.isExecutableFile(atPath: (DesktopRoot.debian13.path ?? "") + "/usr/bin/labwc"),
                missing:
                    "no labwc in the Debian 13 root, or GTK 3 for Python here: `make setup-tests` makes the root with it (scripts/debian13-root.sh) and installs python3-gi and gir1.2-gtk-3.0"
            )
        }
    }

    public init(_ kind: Kind) throws {
        self.kind = kind
        let base = NSTemporaryDirectory() + "gestured-\(kind.name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        runtimeDirectory = base + "/runtime"
        scratch = base + "/scratch"
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        chmod(runtimeDirectory, 0o700)
        var environment = [
            "XDG_RUNTIME_DIR": runtimeDirectory, "HOME": runtimeDirectory, "PATH": "/usr/bin:/bin",
            "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman",
        ]
        let command: [String]
        let displayFile = scratch + "/display"
        switch kind {
        case .phoc:
            // Its views' and seat's decisions in its log, for a failure's
            // message. Its Xwayland stays: phoc 0.24 makes its seat when it
            // sets Xwayland up, and with no input device and no seat its
            // windows get no wl_seat and nothing is ever focused. That needs
            // /tmp/.X11-unix to be root's or this user's (the tests' other
            // compositors start no Xwayland, so none makes it another's).
            environment.merge(["GSETTINGS_BACKEND": "memory", "G_MESSAGES_DEBUG": "all"]) { $1 }
            var x11 = stat()
            if stat("/tmp/.X11-unix", &x11) == 0, x11.st_uid != 0, x11.st_uid != geteuid() {
                throw ChannelError(
                    "/tmp/.X11-unix belongs to uid \(x11.st_uid): phoc's Xwayland refuses it, and without it phoc has no seat to focus windows with; remove the folder (sudo rmdir /tmp/.X11-unix) or make it root's"
                )
            }
            command = ["/usr/bin/phoc"]
        case .labwc:
            // labwc names its socket to what it starts: the display, once it serves.
            command = ["/usr/bin/labwc", "-s", "sh -c 'echo \"$WAYLAND_DISPLAY\" > \(displayFile)'"]
        }
        compositor = try Child(
            kind.root.command(command, environment: environment), stdout: .file(scratch + "/\(kind.name).log"))
        for _ in 0..<300 {
            if let display = Self.display(kind: kind, log: log, file: displayFile) {
                waylandDisplay = display
                return
            }
            usleep(50_000)
        }
        throw ChannelError("\(kind.name) did not start: \(log)")
    }

    /// The display's name once the compositor serves it: phoc says it in its
    /// log, labwc's startup command writes it.
    private static func display(kind: Kind, log: String, file: String) -> String? {
        switch kind {
        case .phoc:
            guard let r = log.range(of: "Running compositor on wayland display '") else { return nil }
            let rest = log[r.upperBound...]
            return rest.firstIndex(of: "'").map { String(rest[..<$0]) }
        case .labwc:
            let name = ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").trimmingCharacters(
                in: .whitespacesAndNewlines)
            return name.isEmpty ? nil : name
        }
    }

    deinit {
        compositor.signal(SIGTERM)
        _ = try? compositor.wait(timeout: 10)
        kind.root.remove((runtimeDirectory as NSString).deletingLastPathComponent)
    }

    public var log: String { (try? String(contentsOfFile: scratch + "/\(kind.name).log", encoding: .utf8)) ?? "" }

    /// What a client of this compositor needs in its environment (act: a session of it).
    public var clientEnvironment: [String: String] {
        [
            "XDG_RUNTIME_DIR": runtimeDirectory, "WAYLAND_DISPLAY": waylandDisplay, "HOME": runtimeDirectory,
            "PATH": "/usr/bin:/bin", "XDG_CURRENT_DESKTOP": kind.desktop,
        ]
    }

    /// A window of app `app` titled `title`; it takes the focus.
    public func window(app: String, title: String) throws -> GtkWindows.Window {
        try GtkWindows.open(app: app, title: title, environment: clientEnvironment, log: scratch + "/window-\(app).log")
    }
}
