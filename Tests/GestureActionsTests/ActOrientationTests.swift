import Foundation
import GestureActions
import GestureCore
import Harness
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `gestured act` follows how its compositor turns the screen: a headless
/// sway whose output the test turns, act in its session telling the daemon,
/// the same replayed swipe coming out in the picture's direction.
@Suite("act follows the compositor's rotation", .serialized)
struct ActOrientationTests {
    static let swipe = DaemonProcess.recording("fast-swipe-up-3f.laptop.evemu")

    /// An actions file of `uid` (act runs no one else's) that writes each swipe's direction to `out`.
    static func actions(in folder: String, out: String, uid: UInt32?) throws -> String {
        let path = folder + "/actions.toml"
        try """
        [[bind]]
        gesture = "swipe"
        run = ["/bin/sh", "-c", "echo $GESTURED_DIRECTION >> \(out)"]
        """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
        if let uid, uid != geteuid() {
            let r = try Child.run(Requirement.asRoot(["/bin/chown", "\(uid):\(uid)", path]), timeout: 20)
            guard r.status == 0 else { throw ChannelError("cannot give \(path) to uid \(uid): \(r.err)") }
        }
        return path
    }

    /// `gestured act` as the compositor's user, in its session.
    static func act(_ sway: HeadlessSway, socket: String, actions: String) throws -> Child {
        try Child(
            HeadlessSway.command(
                [BuildProducts.gestured, "act", "--config", actions, "--socket", socket], as: sway.uid,
                environment: sway.clientEnvironment), stdout: .file(sway.scratch + "/act.log"))
    }

    /// Waits until the last direction written to `out` is `direction`.
    static func waitFor(_ direction: String, in out: String, log: () -> String) throws {
        for _ in 0..<300 {
            let lines = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n")
            if lines.last.map(String.init) == direction { return }
            usleep(50_000)
        }
        let got = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        throw ChannelError("no swipe \(direction) came; swipes: \(got.split(separator: "\n").suffix(6)); \(log())")
    }

    /// The daemon replaying a swipe up (or `recording`, of Recordings) for ever. `rootFolder`: started as
    /// root (through sudo -n, as a user), its socket in that folder of
    /// root's, so that the other users' acts believe it.
    /// Without `systemBus` no session is asked about (`deliver = "everyone"`).
    /// `verbose`: its debug lines too (what the clients claim). `loop`:
    /// the recording again and again, else once, when the first client subscribes.
    static func daemon(
        systemBus: String? = nil, rootFolder: String? = nil, verbose: Bool = false, replaying recording: String? = nil,
        loop: Bool = true
    ) throws -> DaemonProcess {
        let sudo = ["/usr/bin/sudo", "-n", "--preserve-env=NOTIFY_SOCKET,DBUS_SYSTEM_BUS_ADDRESS", "--"]
        let deliver = systemBus == nil ? "deliver = \"everyone\"\n" : ""
        let replay = ["--replay", recording.map(DaemonProcess.recording) ?? swipe] + (loop ? ["--loop"] : [])
        let d = try DaemonProcess(
            replay + ["--wait-subscribers", "1"] + (verbose ? ["-v"] : []),
            config: "[daemon]\nsocket-mode = \"0666\"\n" + deliver,
            wrapper: rootFolder != nil && !Requirement.isRoot ? sudo : [], systemBus: systemBus,
            socketPath: rootFolder.map { $0 + "/gestured.sock" })
        chmod(d.directory, 0o755)
        return d
    }

    @Test(
        "each turn of sway's output reaches the daemon through act, and the same swipe comes out in the picture's direction",
        .requires(HeadlessSway.requirement))
    func followsSway() throws {
        let d = try Self.daemon()
        let sway = try HeadlessSway()
        let out = sway.scratch + "/swipes"
        let act = try Self.act(sway, socket: d.socket, actions: try Self.actions(in: sway.scratch, out: out, uid: sway.uid))
        defer { act.signal(SIGTERM) }
        let log = { "act: \((try? String(contentsOfFile: sway.scratch + "/act.log", encoding: .utf8)) ?? "")\ndaemon: \(d.log)" }
        try Self.waitFor("up", in: out, log: log)
        // sway turns clockwise and announces the counter-clockwise wl_output
        // transform: its 90 is the protocol's 270. A swipe toward the
        // panel's top goes toward the picture's left when its top is at the
        // panel's right.
        for (swayTurn, transform, direction) in [("90", "270", "left"), ("180", "180", "down"), ("270", "90", "right")] {
            try sway.transform(swayTurn)
            try Self.waitFor(direction, in: out, log: log)
            #expect(d.log.contains("touches read turned \(transform) (session)"), "\(log())")
        }
        try sway.transform("normal")
        try Self.waitFor("up", in: out, log: log)
        act.signal(SIGTERM)
        _ = try act.wait(timeout: 10)
        let said = log()
        #expect(said.contains("following how the compositor turns its outputs: HEADLESS-1 normal"), "\(said)")
        #expect(try d.stop() == 0)
    }

    @Test(
        "an act whose session is not the active one is refused: its compositor's turn changes nothing",
        .requires(HeadlessSway.requirement, LogindMock.requirement, .root))
    func inactiveSessionRefused() throws {
        let logind = try LogindMock()
        let (active, other) = (Requirement.strangerUID, Requirement.strangerUID + 1)
        try logind.addSession("c2", uid: other, name: "other")
        try logind.addSession("c1", uid: active, name: "active")
        let folder = NSTemporaryDirectory() + "gestured-root-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        _ = try Child.run(
            Requirement.asRoot(["/usr/bin/install", "-d", "-m", "0755", "-o", "root", "-g", "root", folder]), timeout: 20)
        defer { _ = try? Child.run(Requirement.asRoot(["/bin/rm", "-rf", folder]), timeout: 20) }
        let d = try Self.daemon(systemBus: logind.address, rootFolder: folder)
        try d.waitForLog("seat0: the active session is uid \(active)'s", timeout: 10)
        let activeSway = try HeadlessSway(uid: active)
        let out = activeSway.scratch + "/swipes"
        let first = try Self.act(
            activeSway, socket: d.socket, actions: try Self.actions(in: activeSway.scratch, out: out, uid: active))
        defer { first.signal(SIGTERM) }
        let otherSway = try HeadlessSway(uid: other)
        let second = try Self.act(
            otherSway, socket: d.socket,
            actions: try Self.actions(in: otherSway.scratch, out: otherSway.scratch + "/swipes", uid: other))
        defer { second.signal(SIGTERM) }
        let log = {
            "active act: \((try? String(contentsOfFile: activeSway.scratch + "/act.log", encoding: .utf8)) ?? "")\nother act: \((try? String(contentsOfFile: otherSway.scratch + "/act.log", encoding: .utf8)) ?? "")\ndaemon: \(d.log)"
        }
        try Self.waitFor("up", in: out, log: log)
        try otherSway.transform("180")
        for _ in 0..<200 where !log().contains("not-at-screen") { usleep(50_000) }
        #expect(log().contains("the daemon says: not-at-screen"), "\(log())")
        try Self.waitFor("up", in: out, log: log)
        #expect(!d.log.contains("touches read turned 180"), "\(log())")
        // The active session's compositor still turns it.
        try activeSway.transform("90")
        try Self.waitFor("left", in: out, log: log)
        #expect(try d.stop() == 0)
    }
}

@Suite("act: which output shows a touchscreen")
struct ScreenOutputTests {
    static let panel = ScreenFollower.Touchscreen(node: "/dev/input/event5", name: "Panel", output: nil)

    @Test("[screen] output, then the device's WL_OUTPUT, then the only output, then the only built-in one; otherwise none")
    func choice() {
        let outputs: [(name: String, transform: ScreenTransform)] = [("HDMI-A-1", .normal), ("eDP-1", .rot90), ("DP-2", .normal)]
        #expect(ScreenFollower.output(for: Self.panel, in: outputs, configured: "DP-2") == 2)
        var mapped = Self.panel
        mapped.output = "HDMI-A-1"
        #expect(ScreenFollower.output(for: mapped, in: outputs, configured: nil) == 0)
        #expect(ScreenFollower.output(for: mapped, in: outputs, configured: "eDP-1") == 1)
        #expect(ScreenFollower.output(for: Self.panel, in: outputs, configured: nil) == 1)
        #expect(ScreenFollower.output(for: Self.panel, in: [("HEADLESS-1", .rot180)], configured: nil) == 0)
        #expect(ScreenFollower.output(for: Self.panel, in: [("DP-1", .normal), ("DP-2", .normal)], configured: nil) == nil)
        #expect(ScreenFollower.output(for: Self.panel, in: outputs, configured: "VGA-1") == nil)
    }

    @Test("[screen] in an actions file: output and follow-rotation read; mistakes named with their line")
    func reading() throws {
        let read = try BindingsReader.readFile(
            bytes: Array("[screen]\noutput = \"eDP-1\"\nfollow-rotation = false\n".utf8), file: "a.toml")
        #expect(read.screen?.output == "eDP-1" && read.screen?.followRotation == false && read.bindings.isEmpty)
        for (text, says) in [
            ("[screen]\noutput = 1\n", "a.toml:2: output must be an output's name"),
            ("[screen]\nfollow-rotation = \"yes\"\n", "a.toml:2: follow-rotation must be true or false"),
            ("[screen]\nrotate = true\n", "a.toml:2: unknown key 'rotate' in [screen]"),
            ("screen = 1\n", "a.toml:1: 'screen' must be a table"),
        ] {
            #expect {
                _ = try BindingsReader.readFile(bytes: Array(text.utf8), file: "a.toml")
            } throws: { error in
                "\(error)".contains(says)
            }
        }
    }
}
