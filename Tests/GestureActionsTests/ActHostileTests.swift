import Foundation
import GestureActions
import Harness
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `gestured act` against what is not the daemon, or a daemon that
/// misbehaves: a socket someone else put where act looks, lines act must
/// not trust, floods, commands that try to outlive their timeout, actions
/// files others could have written (docs/security.md, "gestured act").
@Suite("gestured act under attack", .serialized)
struct ActHostileTests {
    /// A server that speaks first like the daemon, takes the subscription,
    /// then does what `mode` says: `lines` sends the lines of FILE and
    /// stays; `newlines` sends empty lines without end; `long` one endless
    /// line; `taps` a tap every 0.2 s; `began` a new gesture's `began`
    /// without end.
    static let fakeDaemon = """
        import os, socket, sys, time
        path, mode = sys.argv[1], sys.argv[2]
        s = socket.socket(socket.AF_UNIX)
        s.bind(path)
        s.listen(8)
        while True:
            c, _ = s.accept()
            try:
                c.sendall(b'{"type":"hello","protocol":"gestured","version":[1,2]}\\n')
                c.makefile('rb').readline()
                c.sendall(b'{"type":"subscribed"}\\n')
                if mode == 'lines':
                    c.sendall(open(sys.argv[3], 'rb').read())
                    time.sleep(3600)
                elif mode == 'newlines':
                    while True: c.sendall(b'\\n' * 65536)
                elif mode == 'long':
                    while True: c.sendall(b'x' * 65536)
                elif mode == 'taps':
                    i = 0
                    while True:
                        i += 1
                        c.sendall(b'{"type":"gesture","gesture":"tap","phase":"recognized","id":%d,"fingers":1,"x":0.5,"y":0.5}\\n' % i)
                        time.sleep(0.2)
                elif mode == 'began':
                    i = 0
                    while True:
                        i += 1
                        c.sendall(b'{"type":"gesture","gesture":"drag","phase":"began","id":%d,"fingers":1,"x":0.5,"y":0.5}\\n' % i)
            except OSError:
                pass
        """

    /// A tap event line with `extra` fields.
    static func tap(id: String = "1", fingers: String = "1", _ extra: String = "") -> String {
        #"{"type":"gesture","gesture":"tap","phase":"recognized","id":"# + id + #","time_us":5,"device":"Panel","fingers":"#
            + fingers + #","x":0.5,"y":0.5"# + extra + "}"
    }

    /// Starts the fake daemon at `socket` (as `user` when given, through
    /// root) and waits for its socket.
    static func fake(
        _ s: ActTests.Scratch, _ mode: String, lines: [String] = [], socket: String? = nil, asUser user: UInt32? = nil
    )
        throws -> Child
    {
        let path = socket ?? s.socket
        try (lines.joined(separator: "\n") + "\n").write(toFile: s.path + "/lines", atomically: true, encoding: .utf8)
        var command = ["/usr/bin/python3", "-c", fakeDaemon, path, mode, s.path + "/lines"]
        if let user {
            command = Requirement.asUser(user, command)
        }
        let child = try Child(command, stdout: .null)
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: path) { usleep(10_000) }
        return child
    }

    static func stop(_ children: Child...) {
        for c in children {
            c.signal(SIGKILL)
            _ = try? c.wait(timeout: 10)
        }
    }

    /// act's resident memory, KiB.
    static func residentKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }

    static func writeBinding(_ s: ActTests.Scratch, _ extra: String = "") throws {
        try """
        [[bind]]
        gesture = "tap"
        run = ["sh", "-c", "env | grep '^GESTURED_' | sort > \(s.path)/env-$GESTURED_ID; echo $GESTURED_ID >> \(s.path)/ran"]
        \(extra)
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
    }

    @Test("a socket in a folder others may write, without the sticky bit, is not believed: nothing runs")
    func openFolder() throws {
        let s = try ActTests.Scratch()
        defer { s.stopAll() }
        try Self.writeBinding(s)
        let open = s.path + "/open"
        mkdir(open, 0o777)
        chmod(open, 0o777)
        let server = try Self.fake(s, "lines", lines: [Self.tap()], socket: open + "/gestured.sock")
        defer { Self.stop(server) }
        let act = try Child(
            [BuildProducts.gestured, "act", "--config", s.actions, "--socket", open + "/gestured.sock"],
            stdout: .file(s.path + "/act.log"))
        defer { Self.stop(act) }
        usleep(1_500_000)
        #expect(s.lines("ran").isEmpty, "a command ran for an untrusted socket")
        #expect(s.actLog.contains("not believing \(open)/gestured.sock: others may write the directory \(open)"), "\(s.actLog)")
        let abstract = try runGestured(["act", "--config", s.actions, "--socket", "@gestured"], timeout: 20)
        #expect(abstract.status == 1 && abstract.err.contains("give its absolute path"), "\(abstract.err)")
    }

    @Test(
        "another user's socket where act looks, in their folder or in /tmp, is not believed; the real one is", .requires(.root))
    func impersonation() throws {
        let s = try ActTests.Scratch()
        defer { s.stopAll() }
        try Self.writeBinding(s)
        chmod(s.path, 0o755)
        // A folder of nobody's, and nobody's socket in it.
        let theirs = s.path + "/theirs"
        mkdir(theirs, 0o755)
        _ = try Child.run(Requirement.asRoot(["/bin/chown", "65534:65534", theirs]))
        let server = try Self.fake(s, "lines", lines: [Self.tap()], socket: theirs + "/gestured.sock", asUser: 65534)
        defer { Self.stop(server) }
        let act = try Child(
            [BuildProducts.gestured, "act", "--config", s.actions, "--socket", theirs + "/gestured.sock"],
            stdout: .file(s.path + "/act.log"))
        usleep(1_500_000)
        #expect(s.lines("ran").isEmpty, "a command ran for nobody's socket")
        #expect(s.actLog.contains("the directory \(theirs) belongs to uid 65534"), "\(s.actLog)")
        Self.stop(act, server)
        // nobody's socket in a sticky folder everyone may write (as /tmp is).
        let sticky = s.path + "/sticky"
        mkdir(sticky, 0o777)
        chmod(sticky, 0o1777)
        let squatter = try Self.fake(s, "lines", lines: [Self.tap()], socket: sticky + "/gestured.sock", asUser: 65534)
        defer { Self.stop(squatter) }
        let act2 = try Child(
            [BuildProducts.gestured, "act", "--config", s.actions, "--socket", sticky + "/gestured.sock"],
            stdout: .file(s.path + "/act2.log"))
        defer { Self.stop(act2) }
        usleep(1_500_000)
        let log = (try? String(contentsOfFile: s.path + "/act2.log", encoding: .utf8)) ?? ""
        #expect(s.lines("ran").isEmpty, "a command ran for nobody's socket in a sticky folder")
        #expect(log.contains("\(sticky)/gestured.sock belongs to uid 65534"), "\(log)")
    }

    @Test("the peer's credentials decide: a peer of another user is named, one's own is believed")
    func peerCredentials() throws {
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { fds.forEach { close($0) } }
        #expect(SocketTrust.daemon().problem(peerOf: fds[0]) == nil)
        let other = SocketTrust(trusted: [geteuid() &+ 1])
        #expect(other.problem(peerOf: fds[0])?.contains("it is served by uid \(geteuid())") == true)
    }

    @Test(
        "numbers beyond 64 bits, out-of-range counts and fields of the wrong type: each line is logged escaped and skipped; the next runs"
    )
    func badNumbers() throws {
        let s = try ActTests.Scratch()
        defer { s.stopAll() }
        try Self.writeBinding(s)
        let lines = [
            Self.tap(id: "9223372036854775808"), Self.tap(id: "18446744073709551616"), Self.tap(fingers: "9223372036854775808"),
            Self.tap(fingers: "0"), Self.tap(id: "2.5"), Self.tap(id: "3", #","x_mm":1e400"#),
            Self.tap(id: "4", #","scale":"big""#),
            #"{"type":"error","message":"\u001b[2J\u001b]0;owned\u0007"}"#, "not json \u{1b}[31m", Self.tap(id: "7"),
        ]
        let server = try Self.fake(s, "lines", lines: lines)
        defer { Self.stop(server) }
        let act = try s.act()
        #expect(s.waitFor("ran", count: 1) == ["7"], "\(s.actLog)")
        #expect(act.isRunning)
        let log = s.actLog
        #expect(log.components(separatedBy: "skipped a line from the daemon").count - 1 == 8, "\(log)")
        #expect(!log.contains("\u{1b}") && !log.contains("\u{07}") && log.contains("\\x1b[2J"), "\(log)")
    }

    @Test(
        "only the protocol's fields become variables, once each, from checked values: no spoofed binding, no forged lines in a value"
    )
    func environment() throws {
        let s = try ActTests.Scratch()
        defer { s.stopAll() }
        try Self.writeBinding(s)
        let line =
            #"{"type":"gesture","gesture":"tap","phase":"recognized","id":9,"fingers":2,"x":0.25,"y":0.5,"binding":"evil","path":"/x","#
            + #""device":"Pa\nGESTURED_BINDING=evil\u0000nel","x_mm":12.5,"taps":1,"edge":null}"#
        let server = try Self.fake(s, "lines", lines: [line])
        defer { Self.stop(server) }
        _ = try s.act()
        #expect(s.waitFor("ran", count: 1) == ["9"], "\(s.actLog)")
        usleep(100_000)
        let env = s.lines("env-9").filter { !$0.hasPrefix("GESTURED_RUN=") }
        let expected = [
            "GESTURED_BINDING=\(s.actions):1", "GESTURED_DEVICE=Pa?GESTURED_BINDING=evil?nel", "GESTURED_FINGERS=2",
            "GESTURED_GESTURE=tap", "GESTURED_ID=9", "GESTURED_PHASE=recognized", "GESTURED_TAPS=1", "GESTURED_X=0.25",
            "GESTURED_X_MM=12.5", "GESTURED_Y=0.5",
        ]
        #expect(env == expected.sorted(), "\(env)")
        #expect(s.lines("env-9").contains { $0.hasPrefix("GESTURED_RUN=") }, "the mark of the command")
    }

    @Test("a binding fires at most max-per-second times a second; the rest are skipped and said once a second")
    func rateLimit() throws {
        let s = try ActTests.Scratch()
        defer { s.stopAll() }
        try Self.writeBinding(s)
        let server = try Self.fake(s, "lines", lines: (1...300).map { Self.tap(id: "\($0)") })
        defer { Self.stop(server) }
        // Room for every command the limit lets through (`--max-running` is another limit).
        let act = try Child(
            [BuildProducts.gestured, "act", "--config", s.actions, "--socket", s.socket, "--max-running", "100"],
            stdout: .file(s.path + "/act.log"))
        defer { Self.stop(act) }
        _ = s.waitFor("ran", count: 10)
        usleep(1_000_000)
        let ran = s.lines("ran").count
        print("act rate limit: 300 taps at once ran the binding \(ran) times")
        #expect(ran >= 10 && ran <= 12, "\(ran)")
        #expect(s.actLog.contains("fired more than 10 times in a second (max-per-second)"), "\(s.actLog)")
    }

    @Test("a flood of empty lines: SIGTERM is honoured at once and memory stays small")
    func newlineFlood() throws {
        let s = try ActTests.Scratch()
        defer { s.stopAll() }
        try Self.writeBinding(s)
        let server = try Self.fake(s, "newlines")
        defer { Self.stop(server) }
        let act = try s.act()
        usleep(1_500_000)
        let rss = Self.residentKiB(act.pid)
        let start = Date()
        act.signal(SIGTERM)
        let status = try act.wait(timeout: 10)
        let took = Date().timeIntervalSince(start)
        print("act under an empty-line flood: \(rss) KiB resident, stopped \(Int(took * 1000)) ms after SIGTERM")
        #expect(status == 0)
        #expect(took < 1.0 * Timing.scale, "\(took) s")
        ResidentMemory.expect(rss, below: 64 * 1024, "act under an empty-line flood")
    }

    @Test("an endless line ends the connection; endless gestures that never end are forgotten: memory stays small")
    func endlessInput() throws {
        for mode in ["long", "began"] {
            let s = try ActTests.Scratch()
            defer { s.stopAll() }
            try "[[bind]]\ngesture = \"drag\"\non-began = [\"true\"]\nmax-per-second = 1\n".write(
                toFile: s.actions, atomically: true, encoding: .utf8)
            let server = try Self.fake(s, mode)
            defer { Self.stop(server) }
            let act = try s.act()
            usleep(3_000_000)
            let rss = Self.residentKiB(act.pid)
            print("act under \(mode == "long" ? "an endless line" : "endless began events"): \(rss) KiB resident")
            ResidentMemory.expect(rss, below: 64 * 1024, "act under \(mode)")
            #expect(act.isRunning)
            if mode == "long" { #expect(s.actLog.contains("a line longer than 65536 bytes"), "\(s.actLog)") }
        }
    }

    @Test("a command's timeout stops what it started, children that called setsid too")
    func setsidChildren() throws {
        let s = try ActTests.Scratch()
        defer { s.stopAll() }
        try """
        [[bind]]
        gesture = "tap"
        run = ["sh", "-c", "setsid sleep 301 & (setsid sh -c 'sleep 302 & exec sleep 303' &) ; echo started >> \(s.path)/ran; exec sleep 300"]
        timeout-ms = 1500
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
        let server = try Self.fake(s, "lines", lines: [Self.tap()])
        defer { Self.stop(server) }
        let act = try s.act()
        #expect(s.waitFor("ran", count: 1) == ["started"], "\(s.actLog)")
        func sleepers() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { pid in
                guard Int32(pid) != nil,
                    let cmdline = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8),
                    cmdline.hasPrefix("sleep\u{0}30")
                else { return nil }
                let environ = (try? String(contentsOfFile: "/proc/\(pid)/environ", encoding: .utf8)) ?? ""
                return environ.contains("GESTURED_RUN=\(act.pid).") ? cmdline : nil
            }
        }
        for _ in 0..<100 where sleepers().count < 4 { usleep(10_000) }
        #expect(sleepers().count == 4, "\(sleepers())")
        let deadline = Date().addingTimeInterval(5 * Timing.scale)
        while Date() < deadline && !sleepers().isEmpty { usleep(50_000) }
        #expect(sleepers().isEmpty, "left running: \(sleepers())")
        #expect(s.actLog.contains("stopping it and what it started"), "\(s.actLog)")
    }

    /// A compositor's IPC as sway and i3 speak it, at `argv[1]`: it answers
    /// the subscription and says Firefox has the focus, then does what
    /// `argv[2]` says: `tree` nothing more; `flood` sends window events
    /// (16 bytes each) without end; `burst` one burst of 16 MiB of 14-byte
    /// messages, then nothing.
    static let fakeCompositor = """
        import os, socket, struct, sys, time
        path, mode = sys.argv[1], sys.argv[2]
        s = socket.socket(socket.AF_UNIX)
        s.bind(path)
        s.listen(8)
        def message(kind, payload):
            return b'i3-ipc' + struct.pack('=II', len(payload), kind) + payload
        tree = (b'{"id":1,"type":"root","nodes":[{"id":2,"type":"output","nodes":[{"id":3,"type":"workspace",'
                b'"nodes":[{"id":10,"type":"con","name":"Maps","focused":true,"app_id":"firefox","nodes":[],'
                b'"floating_nodes":[]}],"floating_nodes":[]}]}]}')
        while True:
            c, _ = s.accept()
            try:
                c.sendall(message(2, b'{"success":true}') + message(4, tree))
                if mode == 'flood':
                    event = message(0x80000003, b'{}')
                    while True: c.sendall(event * 4096)
                elif mode == 'burst':
                    c.sendall(message(0x80000003, b'') * (16 * 1024 * 1024 // 14))
                time.sleep(3600)
            except OSError:
                pass
        """

    /// Starts the fake compositor at `path` (as `user` when given, through root).
    static func compositor(
        _ s: ActTests.Scratch, _ mode: String, at path: String, asUser user: UInt32? = nil
    ) throws
        -> Child
    {
        var command = ["/usr/bin/python3", "-c", fakeCompositor, path, mode]
        if let user {
            command = Requirement.asUser(user, command)
        }
        let child = try Child(command, stdout: .null)
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: path) { usleep(10_000) }
        return child
    }

    /// act with `SWAYSOCK` (or another variable) set, its log in `log`.
    static func act(_ s: ActTests.Scratch, _ variable: String, _ value: String, log: String = "act.log") throws -> Child {
        var environment = ProcessInfo.processInfo.environment
        for name in ["SWAYSOCK", "I3SOCK", "WAYLAND_DISPLAY", "DISPLAY"] { environment[name] = nil }
        environment[variable] = value
        return try Child(
            [BuildProducts.gestured, "act", "--config", s.actions, "--socket", s.socket], environment: environment,
            stdout: .file(s.path + "/" + log))
    }

    @Test(
        "another user's compositor socket where act looks for the focus (SWAYSOCK, I3SOCK, WAYLAND_DISPLAY), in /tmp or their folder, is not believed: a when.app binding never runs; the user's own is followed",
        .requires(.root))
    func compositorImpersonation() throws {
        let s = try ActTests.Scratch()
        defer { s.stopAll() }
        try Self.writeBinding(s, #"when = { app = ["firefox"] }"#)
        chmod(s.path, 0o755)
        let taps = try Self.fake(s, "taps")
        defer { Self.stop(taps) }
        // nobody's socket in a sticky folder everyone may write, as sway's
        // fallback in /tmp is; and one in nobody's own folder.
        let sticky = s.path + "/sticky"
        mkdir(sticky, 0o777)
        chmod(sticky, 0o1777)
        let theirs = s.path + "/theirs"
        mkdir(theirs, 0o755)
        _ = try Child.run(Requirement.asRoot(["/bin/chown", "65534:65534", theirs]))
        for (variable, path) in [("SWAYSOCK", sticky + "/sway-ipc.sock"), ("I3SOCK", theirs + "/ipc.sock")] {
            let squatter = try Self.compositor(s, "tree", at: path, asUser: 65534)
            defer { Self.stop(squatter) }
            let act = try Self.act(s, variable, path, log: "act-\(variable).log")
            defer { Self.stop(act) }
            usleep(2_000_000)
            let log = (try? String(contentsOfFile: s.path + "/act-\(variable).log", encoding: .utf8)) ?? ""
            #expect(s.lines("ran").isEmpty, "\(variable): a when.app binding ran for nobody's compositor: \(log)")
            #expect(log.contains("not following the focus through"), "\(variable): \(log)")
            #expect(log.contains("uid 65534"), "\(variable): \(log)")
        }
        // A Wayland socket of nobody's: never connected to.
        let runtime = s.path + "/runtime"
        mkdir(runtime, 0o700)
        let wayland = runtime + "/wayland-9"
        let listener = try Self.compositor(s, "tree", at: wayland, asUser: nil)
        _ = try Child.run(Requirement.asRoot(["/bin/chown", "65534:65534", wayland]))
        defer { Self.stop(listener) }
        var environment = ProcessInfo.processInfo.environment
        for name in ["SWAYSOCK", "I3SOCK", "DISPLAY"] { environment[name] = nil }
        environment["WAYLAND_DISPLAY"] = "wayland-9"
        environment["XDG_RUNTIME_DIR"] = runtime
        let act = try Child(
            [BuildProducts.gestured, "act", "--config", s.actions, "--socket", s.socket], environment: environment,
            stdout: .file(s.path + "/act-wayland.log"))
        usleep(1_500_000)
        Self.stop(act)
        let log = (try? String(contentsOfFile: s.path + "/act-wayland.log", encoding: .utf8)) ?? ""
        #expect(log.contains("not talking to the compositor at \(wayland): \(wayland) belongs to uid 65534"), "\(log)")
        // The user's own: followed, and the binding runs (the stand-in daemon serves one act at a time).
        let own = try Self.compositor(s, "tree", at: s.path + "/own.sock")
        defer { Self.stop(own) }
        let believed = try Self.act(s, "SWAYSOCK", s.path + "/own.sock", log: "act-own.log")
        defer { Self.stop(believed) }
        let ran = s.waitFor("ran", count: 1)
        let ownLog = (try? String(contentsOfFile: s.path + "/act-own.log", encoding: .utf8)) ?? ""
        #expect(!ran.isEmpty, "\(ownLog)")
    }

    @Test(
        "a compositor's IPC that floods act with events, endless or in one 16 MiB burst: the bindings still run, and SIGTERM ends act at once"
    )
    func compositorFlood() throws {
        for mode in ["flood", "burst"] {
            let s = try ActTests.Scratch()
            defer { s.stopAll() }
            try Self.writeBinding(s)
            let taps = try Self.fake(s, "taps")
            defer { Self.stop(taps) }
            let ipc = try Self.compositor(s, mode, at: s.path + "/sway.sock")
            defer { Self.stop(ipc) }
            let act = try Self.act(s, "SWAYSOCK", s.path + "/sway.sock")
            let ran = s.waitFor("ran", count: 5)
            #expect(ran.count >= 5, "\(mode): \(ran.count) taps ran in 10 s: \(s.actLog.suffix(600))")
            let start = Date()
            act.signal(SIGTERM)
            let status = try act.wait(timeout: 30)
            let took = Date().timeIntervalSince(start)
            print("act under a compositor's \(mode): \(ran.count) taps ran, stopped \(Int(took * 1000)) ms after SIGTERM")
            #expect(status == 0)
            #expect(took < 1.0 * Timing.scale, "\(mode): \(took) s after SIGTERM")
        }
    }

    @Test(
        "the session locks in the middle of a gesture: what began before runs, nothing after (no run, no on-ended); the pipe program gets a cancelled end"
    )
    func lockMidGesture() throws {
        let s = try ActTests.Scratch()
        defer { s.stopAll() }
        try """
        [[bind]]
        gesture = "pinch"
        on-began = ["sh", "-c", "echo began >> \(s.path)/ran"]
        on-ended = ["sh", "-c", "echo ended >> \(s.path)/ran"]

        [[bind]]
        gesture = "pinch"
        direction = "open"
        run = ["sh", "-c", "echo run >> \(s.path)/ran"]

        [[bind]]
        gesture = "pinch"
        pipe = ["sh", "-c", "cat >> \(s.path)/piped"]
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
        func pinch(_ phase: String, _ extra: String = "") -> String {
            #"{"type":"gesture","gesture":"pinch","phase":""# + phase
                + #"","id":4,"time_us":5,"device":"Panel","fingers":2,"x":0.5,"y":0.5"# + extra + "}"
        }
        let lines = [
            #"{"type":"context","locked":false,"tablet_mode":false}"#, pinch("began"), pinch("changed", #","scale":1.2"#),
            #"{"type":"context","locked":true,"tablet_mode":false}"#, pinch("changed", #","scale":1.6"#),
            pinch("ended", #","scale":2.0,"direction":"open""#),
        ]
        let server = try Self.fake(s, "lines", lines: lines)
        defer { Self.stop(server) }
        _ = try s.act()
        #expect(s.waitFor("ran", count: 1) == ["began"], "\(s.actLog)")
        let piped = s.waitFor("piped", count: 3)
        usleep(1_000_000)
        #expect(s.lines("ran") == ["began"], "ran after the lock: \(s.lines("ran")) \(s.actLog)")
        #expect(piped.count == 3, "\(piped)")
        #expect(piped.last?.contains(#""phase":"cancelled""#) == true, "\(piped)")
        #expect(piped.last?.contains("the session at the screen locked") == true, "\(piped)")
        #expect(s.actLog.contains("not acting on gesture 4: the session at the screen is locked"), "\(s.actLog)")
    }

    @Test("act stops a pipe program with all it started: children that called setsid too")
    func pipeChildren() throws {
        let s = try ActTests.Scratch()
        defer { s.stopAll() }
        try """
        [[bind]]
        gesture = "tap"
        pipe = ["sh", "-c", "for i in 1 2 3 4 5; do setsid sleep 311 & done; echo started >> \(s.path)/ran; cat > /dev/null"]
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
        let server = try Self.fake(s, "lines", lines: [Self.tap()])
        defer { Self.stop(server) }
        let act = try s.act()
        #expect(s.waitFor("ran", count: 1) == ["started"], "\(s.actLog)")
        func sleepers() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { pid in
                guard Int32(pid) != nil,
                    let cmdline = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8),
                    cmdline == "sleep\u{0}311\u{0}"
                else { return nil }
                let environ = (try? String(contentsOfFile: "/proc/\(pid)/environ", encoding: .utf8)) ?? ""
                return environ.contains("GESTURED_BINDING=\(s.actions):1") ? pid : nil
            }
        }
        for _ in 0..<200 where sleepers().count < 5 { usleep(10_000) }
        #expect(sleepers().count == 5, "\(sleepers())")
        act.signal(SIGTERM)
        #expect(try act.wait(timeout: 10) == 0)
        let deadline = Date().addingTimeInterval(5 * Timing.scale)
        while Date() < deadline && !sleepers().isEmpty { usleep(50_000) }
        let left = sleepers()
        for pid in left { kill(pid_t(pid)!, SIGKILL) }
        #expect(left.isEmpty, "left running after act stopped: \(left)")
    }

    @Test("actions files: a FIFO is skipped with a message, so is a file others may write; the other files' bindings run")
    func unsafeActionsFiles() throws {
        let s = try ActTests.Scratch()
        defer { s.stopAll() }
        try Self.writeBinding(s)
        let fifo = s.path + "/fifo.toml"
        #expect(mkfifo(fifo, 0o600) == 0)
        let shared = s.path + "/shared.toml"
        try "[[bind]]\ngesture = \"tap\"\nrun = [\"touch\", \"\(s.path)/shared-ran\"]\n".write(
            toFile: shared, atomically: true, encoding: .utf8)
        chmod(shared, 0o666)
        let server = try Self.fake(s, "lines", lines: [Self.tap(id: "5")])
        defer { Self.stop(server) }
        let act = try Child(
            [BuildProducts.gestured, "act", "--config", fifo, "--config", shared, "--config", s.actions, "--socket", s.socket],
            stdout: .file(s.path + "/act.log"))
        defer { Self.stop(act) }
        #expect(s.waitFor("ran", count: 1) == ["5"], "\(s.actLog)")
        #expect(s.actLog.contains("\(fifo): skipped: it is not a regular file"), "\(s.actLog)")
        #expect(s.actLog.contains("\(shared): skipped: others may write it (mode 0666)"), "\(s.actLog)")
        #expect(!FileManager.default.fileExists(atPath: s.path + "/shared-ran"))
        let check = try runGestured(["act", "--check", "--config", fifo, "--config", s.actions], timeout: 20)
        #expect(check.status == 0 && check.err.contains("skipped: it is not a regular file"), "\(check.err)")
        // The only file named, refused: its path said once, and no advice
        // to pass the --config the user passed.
        let alone = try runGestured(["act", "--check", "--config", shared], timeout: 20)
        #expect(alone.status != 0)
        #expect(
            alone.err.components(separatedBy: shared).count == 2
                && alone.err.contains(
                    "skipped: others may write it (mode 0666); chmod go-w it; no bindings: fix it, or name another file")
                && !alone.err.contains("--config FILE"), "\(alone.err)")
    }
}
