import Foundation
import GestureCore
import Harness
import Testing

@testable import GestureActions

#if canImport(Glibc)
    import Glibc
#endif

/// `gestured act` follows the focused window: a headless sway, windows of
/// the apps the bindings name (foot terminals given an app id), act in the
/// compositor's session reading its IPC, and the same replayed swipe
/// running a different command as the focus moves.
@Suite("act follows the focused window", .serialized)
struct ActFocusTests {
    /// Where act reads the focus from: sway's IPC, or the Wayland
    /// compositor's foreign-toplevel list (sway offers both).
    enum Through: String, CustomTestStringConvertible {
        case ipc, wayland
        var testDescription: String { self == .ipc ? "sway's IPC" : "wlr-foreign-toplevel-management" }
    }

    @Test(
        "each binding acts only in the app and fullscreen state it names; while an app of leave-to-apps has the focus nothing acts and nothing is claimed",
        .requires(HeadlessSway.requirement, HeadlessSway.footRequirement), arguments: [Through.ipc, .wayland])
    func followsTheFocus(through: Through) throws {
        let sway = try HeadlessSway()
        try Self.focusScenario(
            SwayDesktop(sway: sway),
            environment: through == .ipc
                ? sway.clientEnvironment.merging(["SWAYSOCK": sway.ipcSocket]) { $1 } : sway.clientEnvironment,
            source: through == .ipc ? "sway" : "the compositor's wlr-foreign-toplevel-management")
    }

    @Test(
        "KWin 5.27 (Debian 12): each binding acts only in the app and fullscreen state it names, nothing in an app of leave-to-apps; act's script reports to act alone, and leaves with it",
        .requires(HeadlessKWin.requirement))
    func followsTheFocusOnKWin() throws { try Self.kwinScenario(in: .host) }

    @Test(
        "KWin 6 (Debian 13): the same, through Plasma 6's scripting",
        .requires(HeadlessKWin.requirement, DesktopRoot.debian13.requirement))
    func followsTheFocusOnKWin6() throws { try Self.kwinScenario(in: .debian13) }

    static func kwinScenario(in root: DesktopRoot) throws {
        let kwin = try HeadlessKWin(in: root)
        let act = try Self.focusScenario(
            KWinDesktop(kwin: kwin), environment: kwin.clientEnvironment,
            source: "KWin's scripting (a script act loads into KWin)",
            whileRunning: { act, ran, log in
                // Another client of the session bus calls act as KWin's script does: refused.
                let name = try kwin.python(
                    """
                    d = dbus.Interface(bus.get_object('org.freedesktop.DBus', '/org/freedesktop/DBus'), 'org.freedesktop.DBus')
                    print([n for n in d.ListNames() if n.startswith(':') and d.GetConnectionUnixProcessID(n) == \(act.pid)][0])
                    """
                ).trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(try kwin.scriptsLoaded(["gestured-act-focus-\(act.pid)"]).count == 1)
                let forged = try? kwin.python(
                    """
                    o = bus.get_object('\(name)', '/org/gestured/act/Focus')
                    o.Focused('gestured.test.draw', 'Drawing', True, True, dbus_interface='org.gestured.act.Focus')
                    """)
                #expect(forged == nil, "a call from another client was answered")
                let before = ran().count
                usleep(3_000_000)
                #expect(!ran().dropFirst(before).contains("draw-fullscreen"), "\(ran().suffix(4)) \(log())")
                // act --context beside it: the focus, and KWin's virtual keyboard (hidden: no input method here).
                let watch = try Child(
                    HeadlessSway.command(
                        [BuildProducts.gestured, "act", "--context", "--socket", "/nonexistent"], as: nil,
                        environment: kwin.clientEnvironment),
                    stdout: .file(kwin.scratch + "/context"), stderr: .null)
                defer { watch.signal(SIGTERM) }
                let said = { (try? String(contentsOfFile: kwin.scratch + "/context", encoding: .utf8)) ?? "" }
                try Self.wait(
                    for: "app \"gestured.test.notes\", title \"Notes 2\", not fullscreen; on-screen keyboard hidden",
                    in: said, log: { "act --context: \(said())\n\(log())" })
                #expect(said().hasPrefix("the focused window: from KWin's scripting"), "\(said())")
            })
        #expect(try kwin.scriptsLoaded(["gestured-act-focus-\(act)"]).isEmpty, "act's script outlived act: \(kwin.log)")
    }

    @Test(
        "phoc (Phosh, a session naming GNOME too): the same through its wlr-foreign-toplevel-management",
        .requires(HeadlessWlroots.requirement(.phoc)))
    func followsTheFocusOnPhoc() throws { try Self.wlrootsScenario(.phoc) }

    @Test(
        "labwc 0.8 (Debian 13): the same through its wlr-foreign-toplevel-management",
        .requires(HeadlessWlroots.requirement(.labwc)))
    func followsTheFocusOnLabwc() throws { try Self.wlrootsScenario(.labwc) }

    static func wlrootsScenario(_ kind: HeadlessWlroots.Kind) throws {
        let compositor = try HeadlessWlroots(kind)
        try Self.focusScenario(
            WlrootsDesktop(compositor: compositor), environment: compositor.clientEnvironment,
            source: "the compositor's wlr-foreign-toplevel-management")
    }

    @Test(
        "GNOME Shell 43 (Debian 12): through the package's extension, each binding acts only in the app and fullscreen state it names, nothing in an app of leave-to-apps; the extension disabled and enabled again is followed",
        .requires(HeadlessGNOMEShell.requirement))
    func followsTheFocusOnGNOME() throws { try Self.gnomeScenario(in: .host) }

    @Test(
        "GNOME Shell 48 (Debian 13): the same, with the extension as an ES module",
        .requires(HeadlessGNOMEShell.requirement, DesktopRoot.debian13.requirement))
    func followsTheFocusOnGNOME48() throws { try Self.gnomeScenario(in: .debian13) }

    static func gnomeScenario(in root: DesktopRoot) throws {
        let shell = try HeadlessGNOMEShell(in: root)
        try Self.focusScenario(
            GNOMEDesktop(shell: shell), environment: shell.clientEnvironment,
            source: "GNOME Shell (the gestured-context@gestured extension)",
            whileRunning: { act, ran, log in
                let watch = try Child(
                    HeadlessSway.command(
                        [BuildProducts.gestured, "act", "--context", "--socket", "/nonexistent"], as: nil,
                        environment: shell.clientEnvironment),
                    stdout: .file(shell.scratch + "/context"), stderr: .file(shell.scratch + "/context.err"))
                defer { watch.signal(SIGTERM) }
                let said = { (try? String(contentsOfFile: shell.scratch + "/context", encoding: .utf8)) ?? "" }
                let saidLog = { "act --context: \(said())\n\(log())\nshell: \(shell.log.suffix(3000))" }
                let notes = "app \"gestured.test.notes\", title \"Notes 2\", not fullscreen; on-screen keyboard hidden"
                try Self.wait(for: notes, in: said, log: saidLog)
                // Disabled: not known; enabled again: followed again.
                func extensions(_ method: String) throws {
                    try shell.bus.python(
                        "dbus.Interface(bus.get_object('org.gnome.Shell', '/org/gnome/Shell'), 'org.gnome.Shell.Extensions').\(method)('gestured-context@gestured')"
                    )
                }
                try extensions("DisableExtension")
                try Self.wait(for: "focused app not known", in: said, log: saidLog)
                try extensions("EnableExtension")
                try Self.wait(for: notes, in: said, log: saidLog, count: 2)
            })
    }

    @Test(
        "GNOME Shell without the extension enabled: act --context says the focus is not known and how to enable it",
        .requires(HeadlessGNOMEShell.requirement))
    func gnomeWithoutTheExtension() throws {
        let shell = try HeadlessGNOMEShell(enabled: false)
        let watch = try Child(
            HeadlessSway.command(
                [BuildProducts.gestured, "act", "--context", "--socket", "/nonexistent"], as: nil,
                environment: shell.clientEnvironment),
            stdout: .file(shell.scratch + "/context"), stderr: .file(shell.scratch + "/context.err"))
        defer { watch.signal(SIGTERM) }
        let err = { (try? String(contentsOfFile: shell.scratch + "/context.err", encoding: .utf8)) ?? "" }
        let said = { (try? String(contentsOfFile: shell.scratch + "/context", encoding: .utf8)) ?? "" }
        try Self.wait(
            for:
                "the GNOME Shell extension gestured-context@gestured is not enabled, so the focused app is not known: run `gnome-extensions enable gestured-context@gestured`",
            in: err, log: { "stderr: \(err())\nstdout: \(said())" })
        #expect(said().contains("focused app not known; on-screen keyboard not known"), "\(said())")
        #expect(err().components(separatedBy: "is not enabled").count == 2, "said more than once: \(err())")
    }

    /// A desktop the focus scenario runs on: windows of the apps it names,
    /// made fullscreen and back.
    protocol Desktop {
        var scratch: String { get }
        var uid: UInt32? { get }
        /// Opens a window of `app` titled `title`; it takes the focus.
        func open(app: String, title: String) throws -> DesktopWindow
    }

    struct DesktopWindow {
        let fullscreen: (Bool) throws -> Void
        let close: () -> Void
    }

    struct SwayDesktop: Desktop {
        let sway: HeadlessSway
        var scratch: String { sway.scratch }
        var uid: UInt32? { sway.uid }
        func open(app: String, title: String) throws -> DesktopWindow {
            let w = try sway.window(app: app, title: title)
            return DesktopWindow(
                fullscreen: { try sway.message(["fullscreen", $0 ? "enable" : "disable"]) },
                close: {
                    w.signal(SIGTERM)
                    _ = try? w.wait(timeout: 10)
                })
        }
    }

    struct KWinDesktop: Desktop {
        let kwin: HeadlessKWin
        var scratch: String { kwin.scratch }
        var uid: UInt32? { nil }
        func open(app: String, title: String) throws -> DesktopWindow {
            let w = try kwin.window(app: app, title: title)
            return DesktopWindow(fullscreen: { w.fullscreen($0) }, close: { w.close() })
        }
    }

    struct GNOMEDesktop: Desktop {
        let shell: HeadlessGNOMEShell
        var scratch: String { shell.scratch }
        var uid: UInt32? { nil }
        func open(app: String, title: String) throws -> DesktopWindow {
            let w = try shell.window(app: app, title: title)
            return DesktopWindow(fullscreen: { w.fullscreen($0) }, close: { w.close() })
        }
    }

    struct WlrootsDesktop: Desktop {
        let compositor: HeadlessWlroots
        var scratch: String { compositor.scratch }
        var uid: UInt32? { nil }
        func open(app: String, title: String) throws -> DesktopWindow {
            let w = try compositor.window(app: app, title: title)
            return DesktopWindow(fullscreen: { w.fullscreen($0) }, close: { w.close() })
        }
    }

    /// act, given `environment`, follows the focus from `source` on
    /// `desktop`: an empty desktop, a drawing app (and it fullscreen), an
    /// app of leave-to-apps, a title; `whileRunning` checks more while act
    /// runs. The pid act had.
    @discardableResult
    static func focusScenario(
        _ desktop: some Desktop, environment: [String: String], source: String,
        whileRunning: (Child, () -> [String], () -> String) throws -> Void = { _, _, _ in }
    ) throws -> Int32 {
        let d = try ActOrientationTests.daemon(verbose: true)
        let out = desktop.scratch + "/ran"
        let path = desktop.scratch + "/actions.toml"
        try """
        [context]
        leave-to-apps = ["gestured.test.paint*"]

        [[bind]]
        gesture = "swipe"
        fingers = 3
        when = { not-app = ["gestured.test.*"] }
        run = ["/bin/sh", "-c", "echo desktop >> \(out)"]

        [[bind]]
        gesture = "swipe"
        fingers = 3
        when = { app = "GESTURED.test.draw", fullscreen = false }
        run = ["/bin/sh", "-c", "echo draw >> \(out)"]

        [[bind]]
        gesture = "swipe"
        fingers = 3
        when = { app = "gestured.test.draw", fullscreen = true }
        run = ["/bin/sh", "-c", "echo draw-fullscreen >> \(out)"]

        [[bind]]
        gesture = "swipe"
        fingers = 3
        when = { title = "Notes *" }
        run = ["/bin/sh", "-c", "echo notes >> \(out)"]
        """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
        if let uid = desktop.uid, uid != geteuid() {
            _ = try Child.run(Requirement.asRoot(["/bin/chown", "\(uid):\(uid)", path]), timeout: 20)
        }
        let act = try Child(
            HeadlessSway.command(
                [BuildProducts.gestured, "act", "--config", path, "--socket", d.socket], as: desktop.uid,
                environment: environment),
            stdout: .file(desktop.scratch + "/act.log"))
        defer { act.signal(SIGTERM) }
        // What act's sources say of the focus, change by change, beside it: a
        // failure's message tells a focus act never learned from a binding
        // that did not act on it.
        let context = try Child(
            HeadlessSway.command(
                [BuildProducts.gestured, "act", "--context", "--socket", "/nonexistent"], as: desktop.uid,
                environment: environment),
            stdout: .file(desktop.scratch + "/context-watch.log"), stderr: .null)
        defer { context.signal(SIGTERM) }
        let actLog = { (try? String(contentsOfFile: desktop.scratch + "/act.log", encoding: .utf8)) ?? "" }
        // The compositor's and the windows' logs, their ends, for a failure's message.
        let desktopLogs = {
            ((try? FileManager.default.contentsOfDirectory(atPath: desktop.scratch)) ?? []).filter {
                $0.hasSuffix(".log") && $0 != "act.log"
            }.sorted().map { name in
                "\(name): \(((try? String(contentsOfFile: desktop.scratch + "/" + name, encoding: .utf8)) ?? "").suffix(3000))"
            }.joined(separator: "\n")
        }
        let log = { "act: \(actLog())\ndaemon: \(d.log)\n\(desktopLogs())" }
        func ran() -> [String] {
            ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        // An empty desktop: no app has the focus.
        try ActOrientationTests.waitFor("desktop", in: out, log: log)
        #expect(actLog().contains("following the focused window through \(source)"), "\(log())")
        let draw = try desktop.open(app: "gestured.test.draw", title: "Drawing")
        try ActOrientationTests.waitFor("draw", in: out, log: log)
        try draw.fullscreen(true)
        try ActOrientationTests.waitFor("draw-fullscreen", in: out, log: log)
        try draw.fullscreen(false)
        try ActOrientationTests.waitFor("draw", in: out, log: log)

        // An app that keeps its touches: nothing runs, nothing is claimed.
        let paint = try desktop.open(app: "gestured.test.paint", title: "Notes 1")
        try Self.wait(for: "has the focus: its touches are left to it", in: actLog, log: log)
        let before = ran().count
        // The swipe replays every 1.5 s or so: three of them.
        usleep(5_000_000)
        #expect(ran().count <= before + 1, "ran in an app of leave-to-apps: \(ran().suffix(4)) \(log())")
        #expect(actLog().contains("claiming nothing on claimed touchscreens now"), "\(log())")
        // The daemon took the new claims.
        try d.waitForLog("clients at the screen claim nothing", timeout: 10)

        // Closed: the focus goes back to the drawing, and so do the claims.
        paint.close()
        try Self.wait(for: "the app that kept its touches lost the focus", in: actLog, log: log)
        try Self.wait(for: "claiming 3 fingers on claimed touchscreens now", in: actLog, log: log)
        try Self.wait(
            for: "clients at the screen claim 3 fingers", in: { String(d.log.split(separator: "claim nothing").last ?? "") },
            log: log)
        let drawn = ran().count { $0 == "draw" }
        for _ in 0..<300 where ran().count(where: { $0 == "draw" }) == drawn { usleep(50_000) }
        #expect(ran().last == "draw", "\(ran().suffix(4)) \(log())")

        // A title: a window titled "Notes 2" of another app.
        let notes = try desktop.open(app: "gestured.test.notes", title: "Notes 2")
        try ActOrientationTests.waitFor("notes", in: out, log: log)
        try whileRunning(act, ran, log)
        notes.close()
        draw.close()
        try ActOrientationTests.waitFor("desktop", in: out, log: log)
        act.signal(SIGTERM)
        _ = try act.wait(timeout: 10)
        #expect(try d.stop() == 0)
        return act.pid
    }

    /// Where act reads an X11 session's focus from: i3's IPC, or the
    /// window manager's EWMH `_NET_ACTIVE_WINDOW` (i3 sets both).
    enum OnX11: String, CustomTestStringConvertible {
        case ipc, ewmh
        var testDescription: String { self == .ipc ? "i3's IPC" : "EWMH _NET_ACTIVE_WINDOW" }
    }

    @Test(
        "X11: under i3 on Xvfb, each binding acts only in the app (the window's WM_CLASS class) and fullscreen state it names, nothing in an app of leave-to-apps",
        .requires(HeadlessI3.requirement), arguments: [OnX11.ipc, .ewmh])
    func followsTheFocusOnX11(through: OnX11) throws {
        let d = try ActOrientationTests.daemon()
        let x = try HeadlessI3()
        let out = x.scratch + "/ran"
        let path = x.scratch + "/actions.toml"
        try """
        [context]
        leave-to-apps = ["GesturedPaint"]

        [[bind]]
        gesture = "swipe"
        fingers = 3
        when = { not-app = ["Gestured*"] }
        run = ["/bin/sh", "-c", "echo desktop >> \(out)"]

        [[bind]]
        gesture = "swipe"
        fingers = 3
        when = { app = "gesturedDraw", fullscreen = false }
        run = ["/bin/sh", "-c", "echo draw >> \(out)"]

        [[bind]]
        gesture = "swipe"
        fingers = 3
        when = { app = "GesturedDraw", fullscreen = true }
        run = ["/bin/sh", "-c", "echo draw-fullscreen >> \(out)"]
        """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
        let act = try Child(
            [BuildProducts.gestured, "act", "--config", path, "--socket", d.socket],
            environment: through == .ipc ? x.environment.merging(["I3SOCK": x.ipcSocket]) { $1 } : x.environment,
            stdout: .file(x.scratch + "/act.log"))
        defer { act.signal(SIGTERM) }
        let actLog = { (try? String(contentsOfFile: x.scratch + "/act.log", encoding: .utf8)) ?? "" }
        let log = { "act: \(actLog())\ndaemon: \(d.log)" }
        func ran() -> [String] {
            ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        try ActOrientationTests.waitFor("desktop", in: out, log: log)
        let source = through == .ipc ? "i3" : "the X11 window manager's _NET_ACTIVE_WINDOW"
        #expect(actLog().contains("following the focused window through \(source)"), "\(log())")
        let draw = try x.window(app: "GesturedDraw", title: "Drawing")
        try ActOrientationTests.waitFor("draw", in: out, log: log)
        try x.message(["fullscreen", "enable"])
        try ActOrientationTests.waitFor("draw-fullscreen", in: out, log: log)
        try x.message(["fullscreen", "disable"])
        try ActOrientationTests.waitFor("draw", in: out, log: log)
        let paint = try x.window(app: "GesturedPaint", title: "Paint")
        try Self.wait(for: "GesturedPaint has the focus: its touches are left to it", in: actLog, log: log)
        let before = ran().count
        usleep(5_000_000)
        #expect(ran().count <= before + 1, "ran in an app of leave-to-apps: \(ran().suffix(4)) \(log())")
        paint.signal(SIGTERM)
        draw.signal(SIGTERM)
        _ = try? paint.wait(timeout: 10)
        _ = try? draw.wait(timeout: 10)
        try ActOrientationTests.waitFor("desktop", in: out, log: log)
        act.signal(SIGTERM)
        _ = try act.wait(timeout: 10)
        #expect(try d.stop() == 0)
    }

    @Test(
        "X11: while no window manager names the active window, act says so and app bindings wait; once one starts, they act in their app",
        .requires(HeadlessI3.requirement))
    func waitsForTheWindowManager() throws {
        let d = try ActOrientationTests.daemon()
        let x = try HeadlessI3(windowManager: false)
        let out = x.scratch + "/ran"
        let path = x.scratch + "/actions.toml"
        try """
        [[bind]]
        gesture = "swipe"
        fingers = 3
        when = { app = "GesturedDraw" }
        run = ["/bin/sh", "-c", "echo draw >> \(out)"]

        [[bind]]
        gesture = "swipe"
        fingers = 3
        when = { not-app = "GesturedDraw" }
        run = ["/bin/sh", "-c", "echo elsewhere >> \(out)"]
        """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
        let act = try Child(
            [BuildProducts.gestured, "act", "--config", path, "--socket", d.socket], environment: x.environment,
            stdout: .file(x.scratch + "/act.log"))
        defer { act.signal(SIGTERM) }
        let actLog = { (try? String(contentsOfFile: x.scratch + "/act.log", encoding: .utf8)) ?? "" }
        let log = { "act: \(actLog())\ndaemon: \(d.log)" }
        try Self.wait(for: "does not say which window is active (no EWMH _NET_ACTIVE_WINDOW)", in: actLog, log: log)
        try ActOrientationTests.waitFor("elsewhere", in: out, log: log)
        try x.startWindowManager()
        try Self.wait(for: "the window manager now says which window is active", in: actLog, log: log)
        let draw = try x.window(app: "GesturedDraw", title: "Drawing")
        try ActOrientationTests.waitFor("draw", in: out, log: log)
        draw.signal(SIGTERM)
        _ = try? draw.wait(timeout: 10)
        try ActOrientationTests.waitFor("elsewhere", in: out, log: log)
        act.signal(SIGTERM)
        _ = try act.wait(timeout: 10)
        #expect(try d.stop() == 0)
    }

    @Test(
        "act --context says where it learns the context, then a line per change: the focused app and its fullscreen state, the lock from the daemon (the focus kept through it), what the bindings do",
        .requires(.root, FakeLogind.requirement, HeadlessSway.requirement, HeadlessSway.footRequirement))
    func contextLines() throws {
        let logind = try FakeLogind(uid: Requirement.strangerUID, session: "c1")
        let d = try ActOrientationTests.daemon(systemBus: logind.address)
        let sway = try HeadlessSway()
        let path = sway.scratch + "/actions.toml"
        try """
        [[bind]]
        gesture = "swipe"
        fingers = 3
        when = { not-app = "gestured.test.draw" }
        run = ["true"]
        """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
        if let uid = sway.uid, uid != geteuid() {
            _ = try Child.run(Requirement.asRoot(["/bin/chown", "\(uid):\(uid)", path]), timeout: 20)
        }
        let watch = try Child(
            HeadlessSway.command(
                [BuildProducts.gestured, "act", "--context", "--config", path, "--socket", d.socket], as: sway.uid,
                environment: sway.clientEnvironment.merging(["SWAYSOCK": sway.ipcSocket]) { $1 }),
            stdout: .file(sway.scratch + "/context"), stderr: .file(sway.scratch + "/context.err"))
        defer { watch.signal(SIGTERM) }
        let said = { (try? String(contentsOfFile: sway.scratch + "/context", encoding: .utf8)) ?? "" }
        let log = {
            "act --context: \(said())\nstderr: \((try? String(contentsOfFile: sway.scratch + "/context.err", encoding: .utf8)) ?? "")\ndaemon: \(d.log)"
        }
        try Self.wait(
            for:
                "no window has the focus; on-screen keyboard not known; unlocked; tablet mode off; 1 of 1 binding(s) can act; claiming 3 fingers",
            in: said,
            log: log)
        #expect(
            said().hasPrefix(
                "the focused window: from sway\nthe on-screen keyboard: from squeekboard (sm.puri.OSK0), KWin's virtual keyboard (org.kde.KWin /VirtualKeyboard) or GNOME Shell's (through the gestured-context@gestured extension), on the session bus\nthe lock and tablet mode: from the daemon at \(d.socket)\n1 binding(s) from \(path)\n"
            ), "\(log())")
        let draw = try sway.window(app: "gestured.test.draw", title: "Drawing")
        let inDraw = "app \"gestured.test.draw\", title \"Drawing\", not fullscreen"
        try Self.wait(
            for: inDraw
                + "; on-screen keyboard not known; unlocked; tablet mode off; 0 of 1 binding(s) can act; claiming nothing",
            in: said, log: log)
        try sway.message(["fullscreen", "enable"])
        try Self.wait(for: "\"Drawing\", fullscreen; on-screen keyboard not known; unlocked", in: said, log: log)
        try sway.message(["fullscreen", "disable"])
        try logind.set(locked: true)
        try Self.wait(
            for: inDraw
                + "; on-screen keyboard not known; locked; tablet mode off; 0 of 1 binding(s) can act; claiming nothing (the daemon leaves every touch to the lock screen)",
            in: said, log: log)
        try logind.set(locked: false)
        draw.signal(SIGTERM)
        _ = try? draw.wait(timeout: 10)
        try Self.wait(
            for:
                "no window has the focus; on-screen keyboard not known; unlocked; tablet mode off; 1 of 1 binding(s) can act; claiming 3 fingers",
            in: said,
            log: log, count: 2)
        // Locked where the plan would claim 3 fingers: the daemon claims
        // nothing then, and act --context says so.
        try logind.set(locked: true)
        try Self.wait(
            for:
                "no window has the focus; on-screen keyboard not known; locked; tablet mode off; 0 of 1 binding(s) can act; claiming nothing (the daemon leaves every touch to the lock screen)",
            in: said, log: log)
        try logind.set(locked: false)
        print("act --context said:\n\(said())")
        watch.signal(SIGTERM)
        #expect(try watch.wait(timeout: 10) == 0)
        #expect(try d.stop() == 0)
    }

    /// One end of i3's IPC, played by the test: a listening socket, and the
    /// connection act made to it.
    final class FakeIPC {
        let path: String
        let listener: Int32
        var peer: Int32 = -1

        init() throws {
            path = NSTemporaryDirectory() + "gestured-i3-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
            listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_un()
            addr.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &addr.sun_path) { raw in
                for (i, b) in path.utf8.enumerated() { raw[i] = b }
            }
            let bound = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard bound == 0, listen(listener, 4) == 0 else { throw ChannelError("cannot listen on \(path)") }
        }

        deinit {
            if peer >= 0 { close(peer) }
            close(listener)
            unlink(path)
        }

        func accept() { peer = Glibc.accept(listener, nil, nil) }

        /// The next message act sent: its type and payload.
        func request() -> (UInt32, String) {
            var head = [UInt8](repeating: 0, count: 14)
            _ = recv(peer, &head, 14, Int32(MSG_WAITALL))
            let length = head[6..<10].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            let type = head[10..<14].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            var payload = [UInt8](repeating: 0, count: Int(length))
            if length > 0 { _ = recv(peer, &payload, Int(length), Int32(MSG_WAITALL)) }
            return (type, String(decoding: payload, as: UTF8.self))
        }

        func send(_ type: UInt32, _ payload: String) {
            var m = Array("i3-ipc".utf8)
            withUnsafeBytes(of: UInt32(payload.utf8.count)) { m += $0 }
            withUnsafeBytes(of: type) { m += $0 }
            m += payload.utf8
            _ = Glibc.send(peer, m, m.count, Int32(MSG_NOSIGNAL))
        }

        /// An X11 tree: one workspace holding `window` (a WM_CLASS class and a name), focused or not.
        static func tree(_ window: (class: String, name: String, id: Int)?, fullscreen: Int = 0) -> String {
            let con =
                window.map {
                    #"{"id":\#($0.id),"type":"con","name":"\#($0.name)","focused":true,"fullscreen_mode":\#(fullscreen),"window_properties":{"class":"\#($0.class)","instance":"x"},"nodes":[],"floating_nodes":[]}"#
                } ?? ""
            let workspace =
                #"{"id":3,"type":"workspace","name":"1","focused":\#(window == nil),"nodes":[\#(con)],"floating_nodes":[]}"#
            return
                #"{"id":1,"type":"root","name":"root","nodes":[{"id":2,"type":"output","name":"eDP-1","nodes":[\#(workspace)]}]}"#
        }
    }

    @Test(
        "i3's IPC (X11): the focused window's WM_CLASS, its title as it changes and its fullscreen state; a broken message or the compositor stopping leaves the focus unknown"
    )
    func i3Protocol() throws {
        let ipc = try FakeIPC()
        #expect(FocusFollower.kind(environment: ["I3SOCK": ipc.path]) == .i3(ipc.path))
        #expect(FocusFollower.kind(environment: ["I3SOCK": "/a", "SWAYSOCK": "/b"]) == .sway("/b"))
        #expect(FocusFollower.kind(environment: ["DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-1"]) == .wayland)
        #expect(FocusFollower.kind(environment: ["DISPLAY": ":0"]) == .x11)
        let plasma = ["WAYLAND_DISPLAY": "wayland-0", "XDG_RUNTIME_DIR": "/run/user/1000", "XDG_CURRENT_DESKTOP": "KDE"]
        #expect(FocusFollower.kind(environment: plasma) == .kwin(runtimeDirectory: "/run/user/1000"))
        #expect(FocusFollower.kind(environment: plasma.merging(["WAYLAND_DISPLAY": ""]) { $1 }) == nil)
        #expect(FocusFollower.kind(environment: plasma.merging(["XDG_CURRENT_DESKTOP": "Phosh:GNOME"]) { $1 }) == .wayland)
        #expect(FocusFollower.kind(environment: plasma.merging(["XDG_CURRENT_DESKTOP": "ubuntu:GNOME"]) { $1 }) == .gnome)
        #expect(FocusFollower.kind(environment: plasma.merging(["XDG_CURRENT_DESKTOP": "sway"]) { $1 }) == .wayland)
        #expect(FocusFollower.kind(environment: plasma.merging(["SWAYSOCK": "/s"]) { $1 }) == .sway("/s"))
        #expect(FocusFollower.kind(environment: [:]) == nil)
        let f = SwayIPCFocus(.i3, path: ipc.path)
        var said: [String] = []
        let now = Timestamp(microseconds: 1_000_000)
        _ = f.beforeWait(now: now, log: { said.append($0) })
        ipc.accept()
        let subscribe = ipc.request()
        #expect(subscribe.0 == 2 && subscribe.1.contains("window") && subscribe.1.contains("workspace"), "\(subscribe)")
        #expect(ipc.request().0 == 7, "then the version")
        #expect(ipc.request().0 == 4, "then the tree")
        ipc.send(2, #"{"success":true}"#)
        ipc.send(7, #"{"human_readable":"4.22","major":4,"minor":22,"patch":0}"#)
        ipc.send(4, FakeIPC.tree(("Firefox", "Maps — Mozilla Firefox", 10)))
        func read() -> Bool {
            var p = pollfd(fd: f.fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 2000)
            return f.read(now: now, log: { said.append($0) })
        }
        #expect(read())
        #expect(f.known && f.focus == FocusedWindow(app: "Firefox", title: "Maps — Mozilla Firefox", fullscreen: false))
        #expect(f.version?.major == 4 && f.version?.minor == 22)
        // A title change of the focused window comes with the event.
        ipc.send(0x8000_0003, #"{"change":"title","container":{"id":10,"type":"con","name":"Mail — Mozilla Firefox"}}"#)
        #expect(read())
        #expect(f.focus?.title == "Mail — Mozilla Firefox")
        // A focus change asks for the tree again.
        ipc.send(0x8000_0003, #"{"change":"focus","container":{"id":11,"type":"con","name":"x"}}"#)
        var p = pollfd(fd: ipc.peer, events: Int16(POLLIN), revents: 0)
        _ = read()
        _ = poll(&p, 1, 2000)
        #expect(ipc.request().0 == 4)
        ipc.send(4, FakeIPC.tree(("mpv", "film.mkv", 11), fullscreen: 1))
        #expect(read())
        #expect(f.focus == FocusedWindow(app: "mpv", title: "film.mkv", fullscreen: true))
        // An empty workspace: nothing has the focus, and that is known.
        ipc.send(0x8000_0000, #"{"change":"focus"}"#)
        _ = read()
        _ = poll(&p, 1, 2000)
        #expect(ipc.request().0 == 4)
        ipc.send(4, FakeIPC.tree(nil))
        #expect(read())
        #expect(f.known && f.focus == nil)
        // Not its protocol: the connection ends and the focus is not known.
        _ = Glibc.send(ipc.peer, "HTTP/1.1 200 OK\r\n\r\n", 19, Int32(MSG_NOSIGNAL))
        #expect(read())
        #expect(!f.known && f.fd == -1)
        #expect(
            said.contains { $0.contains("i3 sent something that is not its IPC: the focused app is not known until it is back") },
            "\(said)")
        // Back after the retry interval, then the compositor stops.
        close(ipc.peer)
        _ = f.beforeWait(now: now + .milliseconds(5000), log: { said.append($0) })
        ipc.accept()
        _ = ipc.request()
        _ = ipc.request()
        ipc.send(4, FakeIPC.tree(("foot", "~", 12)))
        #expect(read() && f.focus?.app == "foot")
        #expect(said.last == "following the focused window through i3 again", "\(said)")
        ipc.send(0x8000_0006, #"{"change":"exit"}"#)
        #expect(read())
        #expect(!f.known && f.focus == nil)
        f.close()
    }

    /// Waits until `read()` has `text` (`count` times at least).
    static func wait(for text: String, in read: () -> String, log: () -> String, count: Int = 1) throws {
        for _ in 0..<300 {
            if read().components(separatedBy: text).count > count { return }
            usleep(50_000)
        }
        throw ChannelError("act never said \"\(text)\": \(log())")
    }
}
