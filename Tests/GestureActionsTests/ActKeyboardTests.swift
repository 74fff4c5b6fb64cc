import Foundation
import Harness
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `gestured act` follows the on-screen keyboard (`when.keyboard`):
/// squeekboard's `sm.puri.OSK0` played by python-dbusmock on a session bus
/// of the test's own, shown and hidden, gone and back, while the daemon
/// replays a swipe.
@Suite("act follows the on-screen keyboard", .serialized)
struct ActKeyboardTests {
    @Test(
        "squeekboard shown and hidden: a when.keyboard binding acts only while it is shown, the other only while it is not, the claims follow, and a keyboard that leaves the bus is not known",
        .requires(PrivateSessionBus.requirement))
    func squeekboard() throws {
        let s = try ActTests.Scratch()
        defer { s.stopAll() }
        let bus = try PrivateSessionBus(directory: s.path)
        let d = try ActOrientationTests.daemon(verbose: true)
        let out = s.path + "/ran"
        try """
        [[bind]]
        gesture = "swipe"
        fingers = 3
        when = { keyboard = false }
        run = ["/bin/sh", "-c", "echo hidden >> \(out)"]

        [[bind]]
        gesture = "swipe"
        fingers = 3
        when = { keyboard = true }
        run = ["/bin/sh", "-c", "echo shown >> \(out)"]
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
        let claimsOnly = s.path + "/claims.toml"
        try """
        [[bind]]
        gesture = "swipe"
        fingers = 3
        when = { keyboard = false }
        run = ["true"]
        """.write(toFile: claimsOnly, atomically: true, encoding: .utf8)
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": s.path, "DBUS_SESSION_BUS_ADDRESS": bus.address,
        ]
        func act(_ arguments: [String], log: String) throws -> Child {
            try Child(
                ["/usr/bin/env", "-i"] + environment.map { "\($0.key)=\($0.value)" }
                    + [BuildProducts.gestured, "act", "--socket", d.socket] + arguments,
                stdout: .file(s.path + "/" + log))
        }
        let acting = try act(["--config", s.actions], log: "act.log")
        defer { acting.signal(SIGTERM) }
        let watching = try act(["--context", "--config", claimsOnly], log: "context.log")
        defer { watching.signal(SIGTERM) }
        let actLog = { (try? String(contentsOfFile: s.path + "/act.log", encoding: .utf8)) ?? "" }
        let said = { (try? String(contentsOfFile: s.path + "/context.log", encoding: .utf8)) ?? "" }
        let log = { "act: \(actLog())\n--context: \(said())\ndaemon: \(d.log)" }

        // No keyboard on the bus: whether one is shown is not known, and keyboard = false acts.
        try ActOrientationTests.waitFor("hidden", in: out, log: log)
        try ActFocusTests.wait(
            for: "on-screen keyboard not known; lock and tablet mode not known", in: said, log: log)

        // squeekboard comes, hidden.
        let squeekboard = try bus.start(
            ["/usr/bin/python3", "-m", "dbusmock", "--session", "sm.puri.OSK0", "/sm/puri/OSK0", "sm.puri.OSK0"],
            log: s.path + "/squeekboard.log")
        for _ in 0..<200 where (try? bus.hasOwner("sm.puri.OSK0")) != true { usleep(50_000) }
        try bus.python(
            "dbus.Interface(bus.get_object('sm.puri.OSK0', '/sm/puri/OSK0'), 'org.freedesktop.DBus.Mock').AddProperty('sm.puri.OSK0', 'Visible', dbus.Boolean(False))"
        )
        func show(_ on: Bool) throws {
            try bus.python(
                "dbus.Interface(bus.get_object('sm.puri.OSK0', '/sm/puri/OSK0'), 'org.freedesktop.DBus.Properties').Set('sm.puri.OSK0', 'Visible', dbus.Boolean(\(on ? "True" : "False")))"
            )
        }
        // The property came after the service: a change makes act ask.
        try show(false)
        try ActFocusTests.wait(for: "following the on-screen keyboard through squeekboard", in: actLog, log: log)
        try ActFocusTests.wait(for: "on-screen keyboard hidden", in: said, log: log)

        try show(true)
        try ActOrientationTests.waitFor("shown", in: out, log: log)
        try ActFocusTests.wait(
            for: "on-screen keyboard shown; unlocked; tablet mode off; 0 of 1 binding(s) can act; claiming nothing",
            in: said, log: log)
        let shownAt = (try? String(contentsOfFile: out, encoding: .utf8))?.split(separator: "\n").count ?? 0
        usleep(3_500_000)
        let since = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").dropFirst(shownAt)
        #expect(!since.contains("hidden"), "a keyboard = false binding acted while the keyboard was shown: \(log())")

        try show(false)
        try ActOrientationTests.waitFor("hidden", in: out, log: log)
        try ActFocusTests.wait(
            for: "on-screen keyboard hidden; unlocked; tablet mode off; 1 of 1 binding(s) can act; claiming 3 fingers",
            in: said, log: log)

        // Shown, then squeekboard leaves the bus: not known, and keyboard = false acts again.
        try show(true)
        try ActOrientationTests.waitFor("shown", in: out, log: log)
        squeekboard.signal(SIGTERM)
        try ActFocusTests.wait(for: "squeekboard left the session bus", in: actLog, log: log)
        try ActOrientationTests.waitFor("hidden", in: out, log: log)
        #expect(try d.stop() == 0)
    }
}
