import Foundation
import GestureActions
import GestureCore
import GestureProtocol
import Harness
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `pointer` bindings: what act claims and asks of the daemon, and when,
/// against a stand-in daemon that sends holds and taps on a schedule and
/// writes down, in order, what it sent and what act asked.
@Suite("gestured act: clicks", .serialized)
struct ActPointerTests {
    /// Serves one client: hello, then `subscribed` for its subscription,
    /// then each line of the script FILE (`wait S` waits S seconds), while
    /// writing to LOG `got LINE` for each line act sends and `sent ID PHASE`
    /// for each event sent; then listens one more second. A fourth
    /// argument is the `subscribed` line it answers with, a fifth its `hello`.
    static let standIn = """
        import json, select, socket, sys, time
        path, script, log = sys.argv[1], sys.argv[2], sys.argv[3]
        reply = (sys.argv[4] if len(sys.argv) > 4 else '{"type":"subscribed"}').encode() + b'\\n'
        hello = (sys.argv[5] if len(sys.argv) > 5 else '{"type":"hello","protocol":"gestured","version":[1,9]}')
        s = socket.socket(socket.AF_UNIX)
        s.bind(path)
        s.listen(1)
        c, _ = s.accept()
        c.sendall(hello.encode() + b'\\n')
        out = open(log, 'w')
        pending = b''
        def take(seconds):
            global pending
            end = time.time() + seconds
            while True:
                left = end - time.time()
                if left <= 0: return
                r, _, _ = select.select([c], [], [], left)
                if not r: continue
                data = c.recv(65536)
                if not data: return
                pending += data
                while b'\\n' in pending:
                    line, pending = pending.split(b'\\n', 1)
                    out.write('got ' + line.decode() + '\\n'); out.flush()
                    if b'"subscribe"' in line: c.sendall(reply)
        take(1.0)
        for step in open(script).read().splitlines():
            if step.startswith('wait '):
                take(float(step[5:]))
                continue
            c.sendall(step.encode() + b'\\n')
            e = json.loads(step)
            out.write('sent %s %s\\n' % (e['id'], e['phase'])); out.flush()
        take(1.0)
        """

    /// A touch-and-hold event: `duration_ms` since the first touch, `dx_mm`
    /// since `began`, and `held_ms` when the daemon says it lasted that long still.
    static func hold(
        _ id: Int, _ phase: String, duration: Double, dx: Double = 0, x: Double = 0.3, held: Int? = nil
    ) -> String {
        let mark = held.map { #","held_ms":\#($0)"# } ?? ""
        return
            #"{"type":"gesture","gesture":"touch-and-hold","phase":"\#(phase)","id":\#(id),"time_us":5,"device":"Panel","fingers":1,"x":\#(x),"y":0.4,"dx_mm":\#(dx),"dy_mm":0,"duration_ms":\#(duration)\#(mark)}"#
    }

    /// A still hold bound to a right click, a two-finger tap to a middle click.
    static let clicks = """
        [[bind]]
        gesture = "touch-and-hold"
        fingers = 1
        pointer = "right-click"

        [[bind]]
        gesture = "tap"
        fingers = 2
        pointer = "middle-click"
        claim = true
        """

    @Test(
        "a hold bound to right-click: the click is asked where the finger is when the daemon says the hold lasted hold-ms still (held_ms), never for a hold it does not say so of, however long; a two-finger tap clicks at once; act claims the hold, asks for its mark and says it will click"
    )
    func holdsAndTaps() throws {
        let s = try ActTests.Scratch()
        defer { s.stopAll() }
        try Self.clicks.write(toFile: s.actions, atomically: true, encoding: .utf8)
        let script = [
            // Still: clicked on the `changed` that says it lasted 800 ms, where it is then.
            Self.hold(1, "began", duration: 500), "wait 0.1", Self.hold(1, "changed", duration: 600, dx: 0.5, x: 0.31),
            "wait 0.3", Self.hold(1, "changed", duration: 800, dx: 0.5, x: 0.32, held: 800),
            "wait 0.6", Self.hold(1, "ended", duration: 1500, x: 0.32),
            // Held on past 800 ms, but the daemon says no mark (it moved beyond slop): no click.
            Self.hold(2, "began", duration: 500), "wait 0.1", Self.hold(2, "changed", duration: 900, dx: 5),
            "wait 0.9", Self.hold(2, "ended", duration: 1500, dx: 5),
            // Lifted before its time: no click.
            Self.hold(3, "began", duration: 500), "wait 0.1", Self.hold(3, "ended", duration: 600),
            "wait 0.9",
            // Began with its mark reached (a daemon whose hold.minDuration is longer): clicked at once.
            Self.hold(4, "began", duration: 900, x: 0.7, held: 800), "wait 0.5",
            Self.hold(4, "ended", duration: 1400, x: 0.7),
            #"{"type":"gesture","gesture":"tap","phase":"recognized","id":5,"time_us":5,"device":"Panel","fingers":2,"x":0.25,"y":0.75,"taps":1}"#,
        ]
        try script.joined(separator: "\n").write(toFile: s.path + "/script", atomically: true, encoding: .utf8)
        let server = try Child(
            ["/usr/bin/python3", "-c", Self.standIn, s.socket, s.path + "/script", s.path + "/log"], stdout: .null)
        defer { ActHostileTests.stop(server) }
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: s.socket) { usleep(10_000) }
        _ = try s.act()
        _ = try server.wait(timeout: 30)
        let log = s.lines("log")
        print("clicks: \(log.joined(separator: "\n"))")
        let subscribe = try #require(log.first { $0.hasPrefix("got ") && $0.contains(#""subscribe""#) })
        #expect(subscribe.contains(#""pointer":true"#), "\(subscribe)")
        #expect(
            subscribe.contains(#""claim":[{"fingers":[2],"edges":[]},{"hold":[{"fingers":1,"ms":800}]}]"#), "\(subscribe)")
        #expect(subscribe.contains(#""hold_ms":[800]"#), "\(subscribe)")
        // Act needs the holds' `changed` to see them move.
        #expect(!subscribe.contains(#""phases""#), "\(subscribe)")
        let events = log.filter { !$0.contains(#""subscribe""#) }
        #expect(
            events == [
                "sent 1 began", "sent 1 changed", "sent 1 changed",
                #"got {"type":"pointer","button":"right","x":0.32,"y":0.4}"#, "sent 1 ended", "sent 2 began", "sent 2 changed",
                "sent 2 ended", "sent 3 began", "sent 3 ended",
                "sent 4 began", #"got {"type":"pointer","button":"right","x":0.7,"y":0.4}"#, "sent 4 ended",
                "sent 5 recognized", #"got {"type":"pointer","button":"middle","x":0.25,"y":0.75}"#,
            ], "\(s.actLog)")
    }

    @Test(
        "the daemon says it cannot make its pointer, and the compositor offers act none: act says so and why, and claims for a click no more (the app keeps its long press and its tap); its other claims stay"
    )
    func noPointerNoHoldClaim() throws {
        let s = try ActTests.Scratch()
        defer { s.stopAll() }
        try
            (Self.clicks + """

                [[bind]]
                gesture = "swipe"
                fingers = 3
                run = ["true"]
                """).write(toFile: s.actions, atomically: true, encoding: .utf8)
        try "wait 1".write(toFile: s.path + "/script", atomically: true, encoding: .utf8)
        let why = "the daemon cannot make its pointer: there is no /dev/uinput (No such file or directory)"
        let reply = #"{"type":"subscribed","unavailable":{"pointer":"\#(why)"}}"#
        let server = try Child(
            ["/usr/bin/python3", "-c", Self.standIn, s.socket, s.path + "/script", s.path + "/log", reply], stdout: .null)
        defer { ActHostileTests.stop(server) }
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: s.socket) { usleep(10_000) }
        _ = try s.act()
        _ = try server.wait(timeout: 30)
        let subscribes = s.lines("log").filter { $0.hasPrefix("got ") && $0.contains(#""subscribe""#) }
        #expect(subscribes.count == 2, "\(subscribes)")
        #expect(
            subscribes.first?.contains(#""claim":[{"fingers":[2,3],"edges":[]},{"hold":[{"fingers":1,"ms":800}]}]"#) == true,
            "\(subscribes)")
        #expect(subscribes.last?.contains(#""claim":{"fingers":[3],"edges":[]}"#) == true, "\(subscribes)")
        #expect(subscribes.last?.contains(#""hold""#) == false, "\(subscribes)")
        #expect(
            s.actLog.contains("\(why); the compositor offers act no pointer of its own either")
                && s.actLog.contains("the gestures bound to a click are not claimed"), "\(s.actLog)")
        // `act --context` names it, from the daemon's hello.
        let hello = #"{"type":"hello","protocol":"gestured","version":[1,13],"unavailable":{"pointer":"\#(why)"}}"#
        let watched = s.path + "/watched.sock"
        let second = try Child(
            ["/usr/bin/python3", "-c", Self.standIn, watched, s.path + "/script", s.path + "/log2", reply, hello],
            stdout: .null)
        defer { ActHostileTests.stop(second) }
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: watched) { usleep(10_000) }
        let context = try Child(
            [BuildProducts.gestured, "act", "--context", "--config", s.actions, "--socket", watched],
            stdout: .file(s.path + "/context"))
        _ = try second.wait(timeout: 30)
        context.signal(SIGTERM)
        _ = try context.wait(timeout: 10)
        let lines = (try? String(contentsOfFile: s.path + "/context", encoding: .utf8)) ?? ""
        #expect(lines.contains("the daemon cannot make its pointer ("), "\(lines)")
    }

    static let wevRequirement = Requirement(
        met: FileManager.default.isExecutableFile(atPath: "/usr/bin/wev"),
        missing: "no wev: `make setup-tests` installs it (Debian package wev), the Wayland client the click test reads")

    /// How often the daemon replays the hold: again and again, or once,
    /// as act subscribes: the first hold after act starts.
    enum Holds: String, CustomTestStringConvertible {
        case looped, first
        var testDescription: String { self == .first ? "the first hold after act starts" : "holds in a loop" }
    }

    @Test(
        "in a headless sway with no other pointer, a hold bound to right-click: a Wayland client (wev) filling the touchscreen's output gets the right button where the finger is (within 1 mm), from act's own virtual pointer, the first hold's click too",
        .requires(HeadlessSway.requirement, Self.wevRequirement), arguments: [Holds.looped, .first])
    func swayClick(holds: Holds) throws {
        let d = try ActOrientationTests.daemon(replaying: "hold-1f.tablet.evemu", loop: holds == .looped)
        let sway = try HeadlessSway()
        let path = sway.scratch + "/actions.toml"
        try """
        [[bind]]
        gesture = "touch-and-hold"
        pointer = "right-click"
        hold-ms = 600
        """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
        if let uid = sway.uid, uid != geteuid() {
            _ = try Child.run(Requirement.asRoot(["/bin/chown", "\(uid):\(uid)", path]), timeout: 20)
        }
        let wevLog = sway.scratch + "/wev.log"
        let wev = try Child(
            HeadlessSway.command(["/usr/bin/stdbuf", "-oL", "/usr/bin/wev"], as: sway.uid, environment: sway.clientEnvironment),
            stdout: .file(wevLog))
        defer { wev.signal(SIGTERM) }
        let read = { (try? String(contentsOfFile: wevLog, encoding: .utf8)) ?? "" }
        let actLog = { (try? String(contentsOfFile: sway.scratch + "/act.log", encoding: .utf8)) ?? "" }
        let log = { "act: \(actLog())\nwev: \(read().suffix(2000))\nsway: \(sway.log.suffix(2000))" }
        // Focused, then fullscreen: its surface is the whole output.
        try ActFocusTests.wait(for: "activated", in: read, log: log)
        try sway.message(["fullscreen", "enable"])
        try ActFocusTests.wait(for: "fullscreen", in: read, log: log)
        let act = try Child(
            HeadlessSway.command(
                [BuildProducts.gestured, "act", "--config", path, "--socket", d.socket], as: sway.uid,
                environment: sway.clientEnvironment), stdout: .file(sway.scratch + "/act.log"))
        defer { act.signal(SIGTERM) }
        try ActFocusTests.wait(for: "button: 273 (right), state: 0", in: read, log: log)
        // act says which pointer clicked after the click: its line may
        // reach the log after wev has printed the button.
        try ActFocusTests.wait(for: "clicking with the compositor's virtual pointer", in: actLog, log: log)
        #expect(!actLog().contains("clicking with the daemon's pointer"), "\(log())")
        // Where the pointer was when the button went down: its last position before.
        let pointer = read().split(separator: "\n").filter { $0.contains("wl_pointer") }
        let press = try #require(pointer.firstIndex { $0.contains("button: 273 (right), state: 1") })
        let position = try #require(
            pointer[..<press].last { $0.contains("x, y: ") }.flatMap { $0.components(separatedBy: "x, y: ").last })
        let xy = position.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        try #require(xy.count == 2, "\(position)")
        let outputs = try Child.run(
            HeadlessSway.command(
                ["/usr/bin/swaymsg", "-r", "-t", "get_outputs"], as: sway.uid,
                environment: sway.clientEnvironment.merging(["SWAYSOCK": sway.ipcSocket]) { $1 }), timeout: 20)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(outputs.out.utf8)) as? [[String: Any]])
        let rect = try #require(list.first?["rect"] as? [String: Any])
        let (w, h) = (try #require(rect["width"] as? Double), try #require(rect["height"] as? Double))
        // Where the finger rests: the mean of the hold's positions, as replay gives them.
        let replay = try runGestured(["replay", "--format", "jsonl", DaemonProcess.recording("hold-1f.tablet.evemu")])
        let held = replay.out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["gesture"] as? String == "touch-and-hold" }.compactMap { e in
            (e["x"] as? Double).flatMap { x in (e["y"] as? Double).map { (x, $0) } }
        }
        try #require(!held.isEmpty, "\(replay.err)")
        let (fx, fy) = (held.map(\.0).reduce(0, +) / Double(held.count), held.map(\.1).reduce(0, +) / Double(held.count))
        print("sway click: at \(xy[0]), \(xy[1]) of \(w) x \(h); the finger at \(fx * w), \(fy * h)")
        #expect(abs(xy[0] - fx * w) <= w / 216 && abs(xy[1] - fy * h) <= h / 135, "\(xy) \(log())")
    }

    @Test("pointer and hold-ms in an actions file: read, claimed and summed up; each mistake named with its line")
    func reading() throws {
        let b = try BindingsReader.read(
            """
            [[bind]]
            gesture = "touch-and-hold"
            pointer = "right-click"
            hold-ms = 650

            [[bind]]
            gesture = "touch-and-hold"
            fingers = [2, 3]
            run = ["x"]
            hold-ms = 1000

            [[bind]]
            gesture = "touch-and-hold"
            fingers = 2
            pointer = "left-click"
            claim = false
            """, file: "a.toml")
        #expect(b[0].pointer == .right && b[0].waitsFor == 650 && b[0].claims == ClaimSet(holds: [1: 650]))
        #expect(b[0].summary == "touch-and-hold → right click, after 650 ms held, claims 1-finger hold of 650 ms")
        let early = try BindingsReader.read(
            "[[bind]]\ngesture = \"touch-and-hold\"\npointer = \"right-click\"\nhold-ms = 100\n", file: "b.toml")
        #expect(
            early[0].summary.contains("as the hold begins (hold-ms 100 is under hold.minDuration, 500 ms"), "\(early[0].summary)")
        // A hold that runs a command waits too, and claims as any binding of its counts.
        #expect(b[1].waitsFor == 1000 && b[1].claims == ClaimSet(fingers: [3]))
        #expect(b[2].waitsFor == Binding.pointerHold && b[2].claims == ClaimSet())
        for (toml, says) in [
            (
                "gesture = \"touch-and-hold\"\npointer = \"right\"",
                "a.toml:3: pointer must be one of \"left-click\", \"right-click\", \"middle-click\""
            ),
            ("gesture = \"touch-and-hold\"\npointer = 1", "pointer must be one of"),
            (
                "gesture = \"tap\"\npointer = \"left-click\"\nhold-ms = 300",
                "a.toml:4: hold-ms is how long a touch-and-hold lasts"
            ),
            (
                "gesture = \"touch-and-hold\"\npointer = \"left-click\"\nhold-ms = 20000",
                "hold-ms must be a whole number of milliseconds, 0 to 10000"
            ),
        ] {
            #expect {
                _ = try BindingsReader.read("[[bind]]\n" + toml + "\n", file: "a.toml")
            } throws: { error in
                "\(error)".contains(says)
            }
        }
    }
}
